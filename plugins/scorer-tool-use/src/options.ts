import { z } from 'zod';

export const toolUseOptions = z
  .object({
    successMetric: z
      .string()
      .default('tests.strict')
      .describe(
        'Step score that says a step is solved (value 1); a trial succeeds when every scored step is',
      ),
    passRateMetric: z
      .string()
      .default('tests.pass_rate')
      .describe('Step score in [0, 1] used as the test pass rate (Test Misinterpretation, consistency)'),
    maxIterations: z
      .number()
      .int()
      .positive()
      .default(100)
      .describe(
        "Iteration cap for Iteration Exhaustion when the harness is not 'ide' (whose own option is read)",
      ),
    perTool: z.boolean().default(true).describe('Add per-tool call counts and bigram counts as scores'),
  })
  .strict();

export type ToolUseOptions = z.output<typeof toolUseOptions>;

export const passAtKOptions = z
  .object({
    k: z
      .array(z.number().int().positive())
      .default([1, 5])
      .describe('pass@k values to report (each needs at least k repeats per task)'),
    successMetric: z
      .string()
      .default('tests.strict')
      .describe('Step score that says a step is solved (value 1)'),
    passRateMetric: z
      .string()
      .default('tests.pass_rate')
      .describe('Step score in [0, 1] for consistency (σ, ICC); success (0/1) when a trial lacks it'),
  })
  .strict();

export type PassAtKOptions = z.output<typeof passAtKOptions>;

export const testReportOptions = z
  .object({
    maxOutputBytes: z
      .number()
      .int()
      .positive()
      .default(1024 * 1024)
      .describe('Cap on the stdout and stderr read from each test run'),
  })
  .strict();

export type TestReportOptions = z.output<typeof testReportOptions>;
