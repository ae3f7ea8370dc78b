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
  dockerfile: z
    .boolean()
    .default(false)
    .describe(
      "Build the dataset's Dockerfile as the task image (its base image must be available offline); otherwise the environment's image with the toolchains the task's tags name",
    ),
});

export type IdebenchOptions = z.output<typeof idebenchOptions>;
