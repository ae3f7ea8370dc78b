import { z } from 'zod';

export const optionsSchema = z.strictObject({
  regression: z
    .boolean()
    .default(true)
    .describe("Also run every case of the earlier steps (category 'regression')"),
  concurrency: z
    .number()
    .int()
    .positive()
    .default(4)
    .describe('Cases run at once, each worker in a sandbox of its own opened from the step snapshot'),
  maxOutputBytes: z
    .number()
    .int()
    .positive()
    .default(1_048_576)
    .describe('Cap on the stdout and stderr captured per invocation'),
});
export type TestsOptions = z.output<typeof optionsSchema>;
