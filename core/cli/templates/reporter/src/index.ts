import { definePlugin, tokens } from '@longhaul/core';
import { z } from 'zod';
import { CsvReporter } from './csv-reporter.js';

export { CsvReporter, csvTable } from './csv-reporter.js';

/** The reporter's options, as an experiment gives them (`reporters: [{id, options}]`). */
export const options = z
  .object({
    file: z
      .string()
      .regex(/^[^/\\]+\.csv$/, 'a file name ending in .csv')
      .default('scores.csv')
      .describe('Name of the CSV file written into the run directory'),
  })
  .strict();

export type Options = z.output<typeof options>;

export default definePlugin({
  kind: 'reporter',
  id: '{{id}}',
  description:
    'Writes every step of every trial, with its status and scores, as one CSV row in the run directory',
  options,
  register(bind, options) {
    bind(tokens.Reporter).toConstantValue(new CsvReporter(options));
  },
});
