import { spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { pidAlive } from './pid-alive.js';

/**
 * What a group of tests needs from the machine beyond npm's packages (a program, a daemon, an
 * image), and what a test file does when it is missing: `npm test` on a machine without it skips
 * those tests with one line naming it, while CI (`CI` set), which installs everything, fails.
 */
export interface Prerequisite {
  /** What the tests need, as the skip line names it: `tmux`, `Docker with the image …`. */
  name: string;
  /** How to get it, an imperative: `install the Debian package tmux`. */
  install: string;
  /** Why it is missing here (short), or undefined when it is there. Runs once per test process. */
  probe(): string | undefined;
}

/** An asynchronous probe, for checks that only a library can make (a daemon's API). */
export interface AsyncPrerequisite extends Omit<Prerequisite, 'probe'> {
  probe(): Promise<string | undefined>;
}

const probed = new Map<string, string | undefined>();

/**
 * Whether `need` is there. When it is missing, with `CI` set (not to `false` or `0`) this throws (the test file fails,
 * naming what is missing and how to get it); otherwise it prints one line, `skipped: tests needing
 * NAME (WHY; INSTALL)`, once per prerequisite per test run, and returns false for the file to
 * skip with `describe.skipIf(!…)`. The probe runs once per test process; its answer is cached.
 */
export function prerequisite(need: Prerequisite): boolean;
export function prerequisite(need: AsyncPrerequisite): Promise<boolean>;
export function prerequisite(need: Prerequisite | AsyncPrerequisite): boolean | Promise<boolean> {
  if (probed.has(need.name)) return decide(need, probed.get(need.name));
  const missing = need.probe();
  if (missing instanceof Promise)
    return missing.then((reason) => {
      probed.set(need.name, reason);
      return decide(need, reason);
    });
  probed.set(need.name, missing);
  return decide(need, missing);
}

function decide(need: { name: string; install: string }, missing: string | undefined): boolean {
  if (missing === undefined) return true;
  if (underCi())
    throw new Error(
      `CI is set, so tests needing ${need.name} fail rather than skip: ${missing} (${need.install}, as .ci/run does)`,
    );
  if (firstInRun(need.name))
    process.stderr.write(`skipped: tests needing ${need.name} (${missing}; ${need.install})\n`);
  return false;
}

/** Whether `CI` is set, to anything but `false` or `0` (which some shells and services write). */
function underCi(): boolean {
  const ci = process.env.CI?.trim().toLowerCase();
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

/**
 * Whether this process is the first of its test run to report `name`. Test files run in worker
 * processes (or threads) of one vitest process (outside vitest, each process says it); a marker
 * file per vitest process and name in the temp directory lets only the first say it. A marker
 * names its vitest process by pid and start time, so a later process given the same pid is not
 * taken for it; markers of vitest processes that are gone are removed.
 */
function firstInRun(name: string): boolean {
  if (!process.env.VITEST) return true;
  const pid = isMainThread ? process.ppid : process.pid;
  const runner = `${pid}.${startTime(pid)}`;
  // One folder per user: another user's would not be writable.
  const dir = join(tmpdir(), `longhaul-prerequisites-${process.getuid?.() ?? 'user'}`);
  try {
    mkdirSync(dir, { recursive: true });
    for (const entry of readdirSync(dir)) {
      const [owner] = entry.split('-');
      const [other] = (owner ?? '').split('.');
      if (owner !== runner && owner !== `${other}.${startTime(Number(other))}`)
        rmSync(join(dir, entry), { force: true });
    }
    writeFileSync(join(dir, `${runner}-${name.replace(/[^\w.]+/g, '_')}`), '', { flag: 'wx' });
    return true;
  } catch (error) {
    // EEXIST: another file of this run said it already. Any other failure: say it again.
    return (error as NodeJS.ErrnoException).code !== 'EEXIST';
  }
}

/** When process `pid` started (clock ticks after boot, from /proc); '' where that is unknown, 'gone' for no process. */
function startTime(pid: number): string {
  if (!Number.isInteger(pid) || pid <= 0) return 'gone';
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command, which may hold spaces and ends at the last ')': starttime is the 20th.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return existsSync('/proc/self/stat') ? 'gone' : pidAlive(pid) ? '' : 'gone';
  }
}

/** A probe: `command args…` runs and exits 0; missing says whether it is not on PATH or failing. */
export function commandProbe(command: string, args: string[] = ['--version']): () => string | undefined {
  return () => {
    const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 });
    if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT')
      return `${command} is not on PATH`;
    if (result.error) return `${command} cannot start: ${result.error.message}`;
    if (result.status === 0) return undefined;
    const said = String(result.stderr).trim().split('\n')[0];
    return `\`${[command, ...args].join(' ')}\` exits with ${result.status ?? result.signal}${said ? `: ${said}` : ''}`;
  };
}

/** A probe: `python` imports every one of `modules`. */
export function pythonModulesProbe(python: string, modules: string[]): () => string | undefined {
  return () => {
    const result = spawnSync(python, ['-c', `import ${modules.join(', ')}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 60_000,
    });
    if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT')
      return `${python} is not there`;
    if (result.status === 0) return undefined;
    const said = String(result.stderr).trim().split('\n').at(-1);
    return `${python} cannot import ${modules.join(', ')}${said ? ` (${said})` : ''}`;
  };
}

/** The `docker` CLI reaches a daemon (DOCKER_HOST is honoured) that holds every one of `images`. */
export function dockerImagesProbe(images: string[]): () => string | undefined {
  return () => {
    const result = spawnSync('docker', ['image', 'inspect', '--format', '{{.Id}}', ...images], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 60_000,
    });
    if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT')
      return 'docker is not on PATH';
    if (result.status === 0) return undefined;
    const said = String(result.stderr).trim();
    const absent = images.filter((image) => said.includes(image));
    if (/no such image/i.test(said) && absent.length > 0) return `no image ${absent.join(', ')}`;
    return `no Docker daemon: ${said.split('\n')[0] || `docker exits with ${result.status}`}`;
  };
}

/** How to install Debian's packages, as the lines and errors say it. */
const install = (...debianPackages: string[]) =>
  `install the Debian package${debianPackages.length > 1 ? 's' : ''} ${debianPackages.join(' ')}`;

/**
 * The machine's prerequisites of longhaul's own tests, each a `prerequisite` with its probe and
 * how `.ci/run` gets it. Each returns whether it is there (see `prerequisite`).
 */
export const prerequisites = {
  /** A tmux to drive a real terminal. */
  tmux: () => prerequisite({ name: 'tmux', install: install('tmux'), probe: commandProbe('tmux', ['-V']) }),
  /** git, for tests that make repositories. */
  git: () => prerequisite({ name: 'git', install: install('git'), probe: commandProbe('git') }),
  /** A redis-server for the queue executor. */
  redis: () =>
    prerequisite({
      name: 'redis-server',
      install: install('redis-server'),
      probe: commandProbe('redis-server'),
    }),
  /** The headless Chromium that Playwright drives: `CHROMIUM`, or /usr/bin/chromium. */
  chromium: () =>
    prerequisite({
      name: 'chromium',
      install: `${install('chromium')} or set CHROMIUM to a Chromium's path`,
      probe: () => {
        const path = process.env.CHROMIUM ?? '/usr/bin/chromium';
        try {
          accessSync(path, constants.X_OK);
          return undefined;
        } catch {
          return `${path} is not there`;
        }
      },
    }),
  /** pytest with pytest-timeout, as SlopCodeBench's hidden tests run, for `python` (Debian's). */
  pytest: (python = '/usr/bin/python3') =>
    prerequisite({
      name: `pytest and pytest-timeout for ${python}`,
      install: install('python3-pytest', 'python3-pytest-timeout'),
      probe: pythonModulesProbe(python, ['pytest', 'pytest_timeout']),
    }),
  /** Root, for tests that give commands a user of their own or write cgroups (CI runs as root). */
  root: () =>
    prerequisite({
      name: 'root',
      install: 'run the tests as root',
      probe: () => (process.getuid?.() === 0 ? undefined : `the tests run as uid ${process.getuid?.()}`),
    }),
  /** bubblewrap, able to create user and network namespaces. */
  bubblewrap: () =>
    prerequisite({
      name: 'bubblewrap with user namespaces',
      install: `${install('bubblewrap')} and allow unprivileged user namespaces`,
      probe: commandProbe('bwrap', ['--unshare-user', '--unshare-net', '--dev-bind', '/', '/', 'true']),
    }),
  /** A Docker daemon holding `images` (longhaul's base images, built by `longhaul images build …`). */
  docker: (images: string[], build = 'longhaul images build') =>
    prerequisite({
      name: `Docker with the image ${images.join(', ')}`,
      install: `install the Debian package docker.io, start dockerd and run \`${build}\``,
      probe: dockerImagesProbe(images),
    }),
};
