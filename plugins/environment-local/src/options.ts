import { excludesOption, maxFileSizeOption } from '@longhaul/core';
import { z } from 'zod';

export const localOptions = z
  .object({
    excludes: excludesOption,
    maxFileSize: maxFileSizeOption,
    root: z
      .string()
      .optional()
      .describe('Directory that holds the sandboxes (default: the system temp directory).'),
    env: z
      .record(z.string(), z.string())
      .default({})
      .describe(
        'Extra environment variables for every command. The agent can read them: never put secrets here.',
      ),
    setupTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(600_000)
      .describe("Time limit for each of the task's setup commands."),
    killGraceMs: z
      .number()
      .int()
      .nonnegative()
      .default(1_000)
      .describe('Time a process group gets between SIGTERM and SIGKILL when it is stopped.'),
    keep: z
      .boolean()
      .default(false)
      .describe('Leave the sandbox directory on disk after close (for debugging).'),
  })
  .strict();

export type LocalOptions = z.output<typeof localOptions>;
