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
    pauseFile: z
      .string()
      .optional()
      .describe(
        "While this file exists and names the step (its id on a line of its own), the step's turns wait before writing (an abort ends the wait): for tests of interruption.",
      ),
    solutions: z
      .string()
      .optional()
      .describe(
        "A folder of prepared workspaces, <task id>/<step id>/ (relative to the experiment's directory): each step's workspace is made equal to its folder instead of to the step's reference solution, which the scorers keep (an imperfect agent, to see how a judge reads it).",
      ),
  })
  .strict();

export type OracleOptions = z.output<typeof oracleOptions>;
