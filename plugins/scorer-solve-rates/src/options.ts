import { z } from 'zod';

export const optionsSchema = z.strictObject({
  solveScorer: z
    .string()
    .default('tests')
    .describe('Label of the step scorer whose <label>.strict / .iso / .core / .pass_rate scores are used'),
  qualityScorer: z
    .string()
    .default('quality')
    .describe('Label of the step scorer whose <label>.erosion and <label>.verbosity scores are used'),
  denominator: z
    .enum(['produced', 'all'])
    .default('produced')
    .describe(
      "Solve rates over the checkpoints the agent produced a workspace for (as the paper's Table 1 reads), or over all scored checkpoints (one a limit kept the agent from counts as unsolved; errored and cancelled ones never count)",
    ),
});
export type SolveRatesOptions = z.output<typeof optionsSchema>;
