import { definePlugin, tokens } from '@longhaul/core';
import { optionsSchema } from './options.js';
import { QualityScorer } from './quality-scorer.js';

export { optionsSchema, type QualityOptions } from './options.js';
export { QualityScorer, sourcesOf, version } from './quality-scorer.js';

export default definePlugin({
  kind: 'scorer',
  id: 'quality',
  description:
    'Code quality of each step’s workspace: erosion, verbosity, clones, slop rules, complexity, churn',
  options: optionsSchema,
  register(bind, options) {
    bind(tokens.Scorer).toConstantValue(new QualityScorer(options));
  },
});
