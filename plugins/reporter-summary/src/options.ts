import { scoreOption } from '@longhaul/core';
import { z } from 'zod';

export const optionsSchema = z.strictObject({
  file: z.string().default('summary.json').describe('Where the summary goes, relative to the run directory'),
  solveScorer: z
    .string()
    .default('tests')
    .describe('Label of the scorer whose <label>.strict / .iso / .core scores give the solve rates'),
  table: z.boolean().default(true).describe('Print the per-condition table at the end of the run'),
  columns: z
    .array(scoreOption('A score, <scorer label>.<metric>'))
    .optional()
    .describe(
      'Scores shown in the table after the solve rates, each the mean over scored steps (e.g. todo-count.lines); default: up to 4 scores of scorers other than the solve scorer',
    ),
});
export type SummaryOptions = z.output<typeof optionsSchema>;
