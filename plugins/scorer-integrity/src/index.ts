import { definePlugin, tokens } from '@longhaul/core';
import { IntegrityScorer } from './integrity-scorer.js';
import { optionsSchema } from './options.js';

export { type Change, classify, type Kind, kinds } from './classify.js';
export { IntegrityScorer, type Signal, version } from './integrity-scorer.js';
export { type IntegrityOptions, optionsSchema } from './options.js';

export default definePlugin({
  kind: 'scorer',
  id: 'integrity',
  description:
    'Tamper signals per step: test files, test configuration, runner hooks, start-up files, programs and results files the agent added, edited or deleted',
  options: optionsSchema,
  register(bind, options) {
    bind(tokens.Scorer).toConstantValue(new IntegrityScorer(options));
  },
});
