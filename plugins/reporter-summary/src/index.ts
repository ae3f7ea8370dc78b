import { definePlugin, tokens } from '@longhaul/core';
import { optionsSchema } from './options.js';
import { SummaryReporter } from './summary-reporter.js';

export { optionsSchema, type SummaryOptions } from './options.js';
export * from './summary.js';
export { SummaryReporter } from './summary-reporter.js';
export { formatDuration, formatTable } from './table.js';

export default definePlugin({
  kind: 'reporter',
  id: 'summary',
  description:
    'summary.json (per trial, step and condition) and a table of solve rates, score means, cost and time with a legend',
  options: optionsSchema,
  register(bind, options) {
    bind(tokens.Reporter).toConstantValue(new SummaryReporter(options));
  },
});
