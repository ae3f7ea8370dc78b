import { excludesOption, maxFileSizeOption, sizeOption } from '@longhaul/core';
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
    memory: sizeOption
      .default('4g')
      .describe(
        "Memory of each sandbox's processes together, swap included (a cgroup's, as root): past it the kernel kills one and the command reports oomKilled; an agent killed so ends its turn with error:oom. Where the runner cannot make cgroups it is not enforced, and validate and run say so.",
      ),
    pids: z
      .number()
      .int()
      .min(16)
      .default(512)
      .describe(
        "Most processes (and threads) a sandbox may hold (a cgroup's, as root; also RLIMIT_NPROC of the sandbox's own user): a fork past it fails and the command reports pidsLimitHit. Contains fork bombs. Where the runner cannot make cgroups and is not root it is not enforced, and validate and run say so.",
      ),
    disk: sizeOption
      .default('10g')
      .describe(
        "What the sandbox's workspace, HOME and TMPDIR may take on disk. A file cannot grow past it (RLIMIT_FSIZE: the writer is stopped); files together past it are noticed within a second or so while commands run, and then every process of the sandbox is stopped and its command reports diskLimitHit (an agent stopped so ends its turn with error:disk). Commands run again once files are removed.",
      ),
    uids: z
      .object({
        first: z.number().int().min(1000).max(4_294_901_759),
        count: z.number().int().min(16).max(65_536),
      })
      .strict()
      .default({ first: 1_879_048_192, count: 65_536 })
      .describe(
        'When the runner is root: the host uids given to sandboxes, one each for its lifetime (`count` of them from `first`; by default 0x70000000 up, above the ranges systemd gives containers). No account may use them.',
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
