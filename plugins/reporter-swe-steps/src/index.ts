import { definePlugin, tokens } from '@longhaul/core';
import { optionsSchema } from './options.js';
import { SweStepsReporter } from './swe-steps-reporter.js';

export { optionsSchema, type ReporterOptions } from './options.js';
export { type ConditionRow, rowsOf } from './rows.js';
export { SweStepsReporter } from './swe-steps-reporter.js';

export default definePlugin({
  kind: 'reporter',
  id: 'swe-steps',
  description:
    "SWE-STEPS's Tables 3 and 8 per setting, the individual setting's inflation, success by chain length and suite size, and the health bins against the gold trace, from scorer 'swe-steps-rates'",
  options: optionsSchema,
  register(bind, options) {
    bind(tokens.Reporter).toConstantValue(new SweStepsReporter(options));
  },
});
