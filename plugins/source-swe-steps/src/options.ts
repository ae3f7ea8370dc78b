import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

export const sweStepsOptions = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe(
      "A dataset directory written by `longhaul swe-steps mine` (dataset.json and repository.bundle), relative to the experiment's directory",
    ),
  cacheDir: z
    .string()
    .default(join(tmpdir(), 'longhaul-swe-steps'))
    .describe(
      "Where each chain's base tree (the agent's seed), each step's gold tree and its hidden test files are written from the bundle; keyed by the manifest's hash, so reused while the dataset is unchanged",
    ),
  filepaths: z
    .boolean()
    .default(false)
    .describe('Name each definition\'s file in the requests (the paper\'s "w/ Filepaths" variant)'),
});

export type SweStepsOptions = z.output<typeof sweStepsOptions>;
