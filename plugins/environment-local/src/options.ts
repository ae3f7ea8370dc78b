import { excludesOption, maxFileSizeOption } from '@longhaul/core';
import { z } from 'zod';

export const isolationModes = ['none', 'bubblewrap'] as const;

export const localOptions = z
  .object({
    isolation: z
      .enum(isolationModes)
      .default('none')
      .describe(
        "`none`: commands run as the runner's user with no isolation: they can read and write everything that user can and reach every host port. `bubblewrap`: each command runs under bwrap in its own PID, mount and user namespace, in a network namespace of the sandbox where only the model gateway is reachable, with the workspace, the sandbox's HOME and /tmp as the only writable paths and the host's system directories read-only.",
      ),
    mounts: z
      .array(
        z
          .string()
          .regex(/^[^:]+(:\/[^:]*)?$/, 'HOST_PATH or HOST_PATH:SANDBOX_PATH (the sandbox path absolute)'),
      )
      .default([])
      .describe(
        "isolation: bubblewrap only: host paths visible read-only in every command, at the same absolute path unless `HOST:SANDBOX` says otherwise; a relative host path is taken from the experiment file's directory. For agent CLIs installed on the host, e.g. ../node_modules/@anthropic-ai/claude-code-linux-x64.",
      ),
    excludes: excludesOption,
    maxFileSize: maxFileSizeOption,
    root: z
      .string()
      .optional()
      .describe(
        'Directory that holds the sandboxes (default: the system temp directory). Each carries a label naming its run and owner process, so `reclaim` can remove those of dead runs.',
      ),
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
