import { excludesOption, maxFileSizeOption, sizeOption as size } from '@longhaul/core';
import { z } from 'zod';
import { endpointOption, tlsOption } from './endpoint.js';

export const dockerOptions = z
  .object({
    host: z
      .union([endpointOption, z.array(endpointOption).min(1)])
      .optional()
      .describe(
        'Docker daemon(s) to open sandboxes on, `DOCKER_HOST`-style (unix:///path.sock, tcp://host:port, ssh://user@host); a list spreads sandboxes over them round-robin. Default: DOCKER_HOST, else /var/run/docker.sock. Sandboxes need the daemon on this machine (unix://): tcp and ssh endpoints serve `check`, `describe` and `images build --host` only.',
      ),
    tls: tlsOption
      .optional()
      .describe('CA, client certificate and key files for tcp:// endpoints (as `docker --tlsverify`).'),
    image: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Image for tasks that name none (their `environment.image` or `environment.dockerfile` wins). Default: the project's base image longhaul/base:<recipe hash>, made by `longhaul images build`.",
      ),
    cpus: z.number().positive().default(2).describe('CPUs each container may use (fractions allowed).'),
    memory: size
      .default('4g')
      .describe(
        'Memory limit of each container, swap included; a process past it is OOM-killed and reported.',
      ),
    pids: z
      .number()
      .int()
      .min(16)
      .default(512)
      .describe('Most processes (and threads) a container may hold; contains fork bombs.'),
    disk: size
      .default('10g')
      .describe(
        "What each container may write to disk: its writable layer (the container's own files, /tmp included) and its workspace. No file can grow past it (RLIMIT_FSIZE: the writer is stopped); files together past it are noticed while commands run (du, paced by its cost, called early when the host's file system loses more than the room left), and then every process of the container is stopped and its command reports diskLimitHit (an agent stopped so ends its turn with error:disk). Where the storage driver has size quotas (overlay2 on xfs with pquota, btrfs, zfs), the writable layer gets one too.",
      ),
    network: z
      .enum(['none', 'open'])
      .optional()
      .describe(
        "`none`: an internal network per run, where only the host's gateway address is reachable (for the model gateway). `open`: internet access too, for tasks that install packages. Default: the task's `environment.network`, else none.",
      ),
    hostPorts: z
      .array(z.number().int().min(1).max(65535))
      .default([])
      .describe(
        'Host ports sandboxes may reach at hostAddress besides those a host process serves on that address itself (the model gateway binds there). Every other host port is refused.',
      ),
    firewall: z
      .boolean()
      .default(true)
      .describe(
        'Guard the host with iptables rules per run network (needs root on the Docker host). Turning it off lets sandboxes reach every service the host listens with on all addresses.',
      ),
    mounts: z
      .array(
        z
          .string()
          .regex(/^[^:]+(:\/[^:]*)?$/, 'HOST_PATH or HOST_PATH:CONTAINER_PATH (the container path absolute)'),
      )
      .default([])
      .describe(
        "Host paths mounted read-only in every container, at the same absolute path unless `HOST:CONTAINER` says otherwise; a relative host path is taken from the experiment file's directory. For agent CLIs installed on the host, e.g. ../node_modules/@anthropic-ai/claude-code-linux-x64.",
      ),
    env: z
      .record(z.string(), z.string())
      .default({})
      .describe(
        'Extra environment variables for every command. The agent can read them: never put secrets here.',
      ),
    excludes: excludesOption,
    maxFileSize: maxFileSizeOption,
    workspace: z
      .string()
      .regex(/^\/.+/, 'an absolute path')
      .refine(
        (path) =>
          !`${path.replace(/\/+$/, '')}/`.startsWith('/judge/') &&
          !'/judge/'.startsWith(`${path.replace(/\/+$/, '')}/`),
        'a path apart from /judge, the judge area of every container',
      )
      .optional()
      .describe(
        "Where the workspace is mounted inside containers (anywhere but /judge, the judge area). Default: where the task asks for it (its environment.workspace, e.g. IDE-Bench's /app), else /workspace. Given here, it wins, and a task that cannot run elsewhere is refused at check.",
      ),
    buildNetwork: z
      .boolean()
      .default(false)
      .describe(
        "Let a task's Dockerfile build reach the network (apt-get, pip install...). Without it builds run with no network, and `check` refuses a Dockerfile that downloads, naming the line. Sandboxes follow `network` either way.",
      ),
    setupTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(600_000)
      .describe("Time limit for each of the task's setup commands (run as root)."),
    buildTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(1_800_000)
      .describe("Time limit for building a task's Dockerfile."),
  })
  .strict()
  .superRefine((options, context) => {
    const hosts = [options.host ?? []].flat();
    if (options.tls !== undefined && !hosts.some((host) => host.startsWith('tcp://')))
      context.addIssue({
        code: 'custom',
        path: ['tls'],
        message: 'tls applies to tcp:// endpoints only, and host names none',
      });
  });

export type DockerOptions = z.output<typeof dockerOptions>;

/** `512m` → bytes, as Docker counts them (powers of 1024). */
export { parseSize } from '@longhaul/core';
