import { definePlugin, tokens } from '@longhaul/core';
import { optionsSchema } from './options.js';
import { SolveRatesReporter } from './solve-rates-reporter.js';

export { optionsSchema, type ReporterOptions } from './options.js';
export { SolveRatesReporter } from './solve-rates-reporter.js';

export default definePlugin({
  kind: 'reporter',
  id: 'solve-rates',
  description:
    "SlopCodeBench's Table 1, progress phases and trajectory shares per condition, from scorer 'solve-rates'",
  options: optionsSchema,
  register(bind, options) {
    bind(tokens.Reporter).toConstantValue(new SolveRatesReporter(options));
  },
});
