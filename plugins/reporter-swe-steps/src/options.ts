import { z } from 'zod';

export const optionsSchema = z.strictObject({
  scorer: z
    .string()
    .default('swe-steps-rates')
    .describe("Label of the experiment scorer 'swe-steps-rates' in the experiment"),
  file: z
    .string()
    .default('swe-steps.json')
    .describe('Where the tables go as JSON, relative to the run directory'),
});
export type ReporterOptions = z.output<typeof optionsSchema>;
