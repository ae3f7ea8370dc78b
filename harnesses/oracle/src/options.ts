import { z } from 'zod';

export const oracleOptions = z
  .object({
    delayMs: z
      .number()
      .int()
      .nonnegative()
      .default(0)
      .describe(
        'Wait this long before writing the solution (an abort ends the wait): for tests of interruption.',
      ),
  })
  .strict();

export type OracleOptions = z.output<typeof oracleOptions>;
