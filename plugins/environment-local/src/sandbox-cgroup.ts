import { spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Plain mode's containment where the host allows it: every call of a sandbox runs in a cgroup of
 * its own, `<v2 mount>/longhaul/<sandbox id>/<call>`. A process cannot leave its cgroup however it
 * detaches (a new session, a cleared environment, a double fork), only root can move it, and
 * `cgroup.kill` ends every process of a cgroup and of those beneath it at once. Needs write access
 * to a cgroup v2 hierarchy (root, in practice); see `cgroupProblem`.
 */

/** The directory under the v2 mount that holds the sandboxes' cgroups. */
const parentName = 'longhaul';

/** Where a cgroup v2 hierarchy is mounted, read from a mountinfo table (fstype `cgroup2`). */
export function cgroup2Mount(mountinfo: string): string | undefined {
  for (const line of mountinfo.split('\n')) {
    // id parent major:minor root mount-point options [optional fields…] - fstype source super-options
    const [before, after] = line.split(' - ');
    if (after?.split(' ')[0] !== 'cgroup2') continue;
    const fields = before!.split(' ');
    if (!fields[5]?.split(',').includes('rw')) continue;
    // Mount points escape space, tab, newline and backslash as octal (\040).
    return fields[4]?.replace(/\\([0-7]{3})/g, (_, octal: string) =>
      String.fromCharCode(Number.parseInt(octal, 8)),
    );
  }
  return undefined;
}

export interface CgroupHierarchy {
  /** `<v2 mount>/longhaul`. */
  readonly parent: string;
  /** How a cgroup is ended: `cgroup.kill` (Linux 5.14+), or freezing it and killing each process. */
  readonly ending: 'kill' | 'freeze';
}

let probed: { hierarchy?: CgroupHierarchy; problem?: string } | undefined;

/**
 * The hierarchy sandboxes' cgroups go in, made on first use, or why there is none. Computed once
 * per process; `LONGHAUL_CGROUP_ENDING=freeze` forces the fallback for kernels before 5.14 (tests).
 */
function probe(): { hierarchy?: CgroupHierarchy; problem?: string } {
  if (probed) return probed;
  let mount: string | undefined;
  try {
    mount = cgroup2Mount(readFileSync('/proc/self/mountinfo', 'utf8'));
  } catch {
    mount = undefined;
  }
  if (mount === undefined) {
    probed = { problem: 'no cgroup v2 hierarchy is mounted read-write (none in /proc/self/mountinfo)' };
    return probed;
  }
  const parent = join(mount, parentName);
  try {
    accessSync(mount, constants.W_OK);
    mkdirSync(parent, { recursive: true });
    accessSync(join(parent, 'cgroup.procs'), constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    probed = { problem: `the cgroup v2 hierarchy at ${mount} is not writable by this user (${code})` };
    return probed;
  }
  const moved = moveProblem(parent);
  if (moved !== undefined) {
    probed = { problem: `a process cannot be moved into a cgroup under ${parent} (${moved})` };
    return probed;
  }
  const canKill = existsSync(join(parent, 'cgroup.kill')) && process.env.LONGHAUL_CGROUP_ENDING !== 'freeze';
  if (!canKill && !existsSync(join(parent, 'cgroup.freeze'))) {
    probed = {
      problem: `the cgroup v2 hierarchy at ${mount} has neither cgroup.kill nor cgroup.freeze (Linux < 5.2)`,
    };
    return probed;
  }
  probed = { hierarchy: { parent, ending: canKill ? 'kill' : 'freeze' } };
  return probed;
}

/**
 * Whether a process can move itself into a cgroup under `parent`, as each sandbox command's shell
 * does: a writable hierarchy can still refuse it (a cgroup namespace, a delegation boundary), and
 * then every command would fail. Tried once per process with a shell of its own (a few ms).
 */
function moveProblem(parent: string): string | undefined {
  const dir = join(parent, `probe-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true });
    const tried = spawnSync('/bin/sh', ['-c', 'echo $$ > "$0"/cgroup.procs', dir], { encoding: 'utf8' });
    if (tried.status !== 0) return (tried.stderr || tried.error?.message || `exit ${tried.status}`).trim();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    try {
      rmdirSync(dir);
    } catch {
      // not made, or gone
    }
  }
}

/** The hierarchy plain sandboxes' cgroups go in, or undefined where this host has none for us. */
export function cgroupHierarchy(): CgroupHierarchy | undefined {
  return probe().hierarchy;
}

/** Why plain sandboxes cannot have cgroups on this host, or undefined when they can. */
export function cgroupProblem(): string | undefined {
  return probe().problem;
}

async function readText(path: string): Promise<string> {
  return readFile(path, 'utf8').catch(() => '');
}

/** The pids in a cgroup and every cgroup beneath it. */
export async function processesIn(dir: string): Promise<number[]> {
  const own = (await readText(join(dir, 'cgroup.procs'))).split('\n').filter(Boolean).map(Number);
  const children = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    children.filter((e) => e.isDirectory()).map((e) => processesIn(join(dir, e.name))),
  );
  return [...own, ...nested.flat()];
}

/** Whether any process is left in the cgroup or beneath it (`populated` of cgroup.events). */
async function populated(dir: string): Promise<boolean> {
  const events = await readText(join(dir, 'cgroup.events'));
  return /^populated 1$/m.test(events);
}

/** Waits for `check` to hold, up to `ms`: the kernel takes a moment to end what was killed. */
async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await delay(10);
  }
}

/** SIGKILLs every process of a cgroup tree; rounds catch a process that forks while it is killed. */
async function killEach(dir: string): Promise<void> {
  for (let round = 0; round < 50; round++) {
    const pids = await processesIn(dir);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await delay(10);
  }
}

/**
 * Ends every process of the cgroup at `dir` and beneath it, then removes the cgroups. With
 * cgroup.kill the kernel does it in one write that no fork escapes; without, the tree is frozen
 * first (nothing forks while frozen, and SIGKILL still ends a frozen process), each process killed,
 * then thawed. A cgroup that is already gone is nothing to do.
 */
export async function endCgroup(dir: string, ending: CgroupHierarchy['ending']): Promise<void> {
  if (!existsSync(dir)) return;
  if (await populated(dir)) {
    if (ending === 'kill') {
      await writeFile(join(dir, 'cgroup.kill'), '1').catch(() => undefined);
    } else {
      await writeFile(join(dir, 'cgroup.freeze'), '1').catch(() => undefined);
      await until(async () => /^frozen 1$/m.test(await readText(join(dir, 'cgroup.events'))), 2_000);
      await killEach(dir);
      await writeFile(join(dir, 'cgroup.freeze'), '0').catch(() => undefined);
    }
    if (!(await until(async () => !(await populated(dir)), 10_000))) await killEach(dir);
  }
  await removeTree(dir);
}

/** rmdir of a cgroup and those beneath it, deepest first (its control files go with it). */
async function removeTree(dir: string): Promise<void> {
  const children = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const child of children) if (child.isDirectory()) await removeTree(join(dir, child.name));
  await removeCgroup(dir);
}

/** rmdir of an empty cgroup: EBUSY while a killed process is still being torn down, so a few tries. */
export async function removeCgroup(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await rmdir(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      if (code !== 'EBUSY' || attempt === 49) throw error;
      await delay(20);
    }
  }
}

/** Sandboxes whose cgroups die with the runner: their directories, for the exit hook. */
const openCgroups = new Set<string>();
let exitHookInstalled = false;

/**
 * Ends, synchronously, every process of the open sandboxes' cgroups: runs when the runner exits
 * with sandboxes still open, so nothing their commands started outlives it.
 */
export function killOpenCgroupsSync(): void {
  for (const dir of openCgroups) {
    try {
      if (existsSync(join(dir, 'cgroup.kill'))) {
        writeFileSync(join(dir, 'cgroup.kill'), '1');
        continue;
      }
      const pids: number[] = [];
      const collect = (at: string): void => {
        pids.push(...readFileSync(join(at, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number));
        for (const e of readdirSync(at, { withFileTypes: true }))
          if (e.isDirectory()) collect(join(at, e.name));
      };
      writeFileSync(join(dir, 'cgroup.freeze'), '1');
      collect(dir);
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      writeFileSync(join(dir, 'cgroup.freeze'), '0');
    } catch {
      // gone already
    }
  }
}

/** The cgroups of one plain sandbox: `<parent>/<sandbox id>`, one child per call. */
export class SandboxCgroup {
  readonly dir: string;

  constructor(
    private readonly hierarchy: CgroupHierarchy,
    sandboxId: string,
    /** Runs whenever the sandbox's cgroup is made (its limits are set there). */
    private readonly onMade?: (dir: string) => Promise<void>,
  ) {
    this.dir = join(hierarchy.parent, sandboxId);
  }

  async open(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await this.onMade?.(this.dir);
    openCgroups.add(this.dir);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once('exit', killOpenCgroupsSync);
    }
  }

  private callDir(call: number): string {
    return join(this.dir, String(call));
  }

  /**
   * The cgroup.procs file of call `call`'s cgroup, made for it: the command's first process writes
   * its pid there before the program runs (see command-wrapper.ts). A sandbox cgroup made anew
   * (prune removes idle ones, also of live sandboxes) gets its limits again through `onMade`.
   */
  async callProcs(call: number): Promise<string> {
    const dir = this.callDir(call);
    // Recursive: `prune` may have removed the sandbox's cgroup while it had no call running, and
    // again between the two levels being made (ENOENT): then once more.
    for (let attempt = 1; ; attempt++) {
      try {
        const made = await mkdir(dir, { recursive: true });
        if (made !== undefined && made !== dir) await this.onMade?.(this.dir);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 3) throw error;
      }
    }
    return join(dir, 'cgroup.procs');
  }

  /** Ends what call `call` left running and removes its cgroup. */
  endCall(call: number): Promise<void> {
    return endCgroup(this.callDir(call), this.hierarchy.ending);
  }

  /** Ends the processes of every call but those in `running`. */
  async sweep(running: ReadonlySet<number>): Promise<void> {
    const calls = await readdir(this.dir, { withFileTypes: true }).catch(() => []);
    await Promise.all(
      calls
        .filter((entry) => entry.isDirectory() && !running.has(Number(entry.name)))
        .map((entry) => endCgroup(join(this.dir, entry.name), this.hierarchy.ending)),
    );
  }

  /** Ends every process of the sandbox and removes its cgroups. */
  async close(): Promise<void> {
    await endCgroup(this.dir, this.hierarchy.ending);
    openCgroups.delete(this.dir);
  }
}

/**
 * Removes the sandboxes' cgroups that hold no process and no call: those of runners that exited
 * with sandboxes open (their exit hook kills, but cannot wait to remove). A live sandbox between
 * calls loses nothing by it: its next call makes the cgroup again.
 */
export async function removeIdleCgroups(): Promise<void> {
  const hierarchy = cgroupHierarchy();
  if (!hierarchy) return;
  const entries = await readdir(hierarchy.parent, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    // A probe is another process's, removed by it in a moment.
    if (!entry.isDirectory() || entry.name.startsWith('probe-')) continue;
    const dir = join(hierarchy.parent, entry.name);
    const inner = await readdir(dir, { withFileTypes: true }).catch(() => []);
    if (inner.some((e) => e.isDirectory()) || (await populated(dir))) continue;
    await rmdir(dir).catch(() => undefined);
  }
}

/** Ends what a dead runner's sandbox left running (its cgroup, if it has one) and removes the cgroup. */
export async function endSandboxCgroup(sandboxId: string): Promise<boolean> {
  const hierarchy = cgroupHierarchy();
  if (!hierarchy) return false;
  const dir = join(hierarchy.parent, sandboxId);
  if (!existsSync(dir)) return false;
  await endCgroup(dir, hierarchy.ending);
  return true;
}
