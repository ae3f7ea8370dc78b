import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

export const idebenchOptions = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe(
      "A dataset directory in IDE-Bench's layout (run_tests.sh and tasks/<id>/), relative to the experiment's directory",
    ),
  cacheDir: z
    .string()
    .default(join(tmpdir(), 'longhaul-idebench'))
    .describe(
      "Where the agent's seed (the dataset without tasks/ and the test runners), each task's reference solution (the golden diff applied) and its hidden test case are written; content-addressed, so reused while the dataset is unchanged",
    ),
  testTimeoutSeconds: z
    .number()
    .positive()
    .default(120)
    .describe('Time limit of `run_tests.sh <task>` when the task is graded (IDE-Bench: 120 s)'),
  problemStatement: z
    .boolean()
    .default(true)
    .describe(
      "Put the description's problem statement (what it says before Instructions:) in the prompt; false gives exactly what IDE-Bench's harness sends, whose parser drops it",
    ),
  dockerfile: z
    .boolean()
    .default(false)
    .describe(
      "Build the dataset's Dockerfile as the task image (its base image must be on the Docker host; validate says when it is not); otherwise the environment's image, checked for the programs run_tests.sh runs",
    ),
});

export type IdebenchOptions = z.output<typeof idebenchOptions>;
