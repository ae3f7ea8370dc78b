import { definePlugin, tokens } from '@longhaul/core';
import { optionsSchema } from './options.js';
import { TestsScorer } from './tests-scorer.js';

export { checkOutput } from './check-output.js';
export { optionsSchema, type TestsOptions } from './options.js';
export { splitCommand } from './split-command.js';
export { TestsScorer, version } from './tests-scorer.js';

export default definePlugin({
  kind: 'scorer',
  id: 'tests',
  description: 'Hidden black-box CLI cases per step: core, functionality, error and regression',
  options: optionsSchema,
  register(bind, options) {
    bind(tokens.Scorer)
      .toDynamicValue((ctx) => new TestsScorer(options, ctx.get(tokens.CaseSlots, { optional: true })))
      .inSingletonScope();
  },
});
