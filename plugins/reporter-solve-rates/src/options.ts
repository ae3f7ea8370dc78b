import { z } from 'zod';

export const optionsSchema = z.strictObject({
  scorer: z
    .string()
    .default('solve-rates')
    .describe("Label of the experiment scorer 'solve-rates' in the experiment"),
  file: z
    .string()
    .default('solve-rates.json')
    .describe('Where the table goes as JSON, relative to the run directory'),
});
export type ReporterOptions = z.output<typeof optionsSchema>;
