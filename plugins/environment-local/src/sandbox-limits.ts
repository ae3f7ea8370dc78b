import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cgroupHierarchy, cgroupProblem, removeCgroup } from './sandbox-cgroup.js';

/**
 * A sandbox's memory and process limits, as a container has them: through a cgroup of the
 * sandbox's own. Where the cgroup v2 hierarchy has the controller (a pure v2 host) the limit is
 * set on the sandbox's v2 cgroup, `<v2>/longhaul/<sandbox>`, which holds its calls' cgroups; on a
 * hybrid host, whose memory and pids controllers are v1 hierarchies, in a v1 cgroup of the
 * sandbox under the runner's own (`<v1 mount><runner's cgroup>/longhaul/<sandbox>`), so a sandbox
 * never leaves what contains the runner. Each command joins these before it runs (see
 * command-wrapper.ts). Needs root, like the cgroups of plain mode.
 */

export type Controller = 'memory' | 'pids';
const controllers: readonly Controller[] = ['memory', 'pids'];

/** What a sandbox may use. */
export interface LimitSettings {
  pids: number;
  memoryBytes: number;
  diskBytes: number;
}

/** Counters a command's result is judged by: kills for memory, forks refused at the pids limit. */
export interface LimitCounters {
  oomKills: number;
  pidsMax: number;
}

/** Where each controller's sandbox cgroups go on this host, or why nowhere. */
interface Placement {
  /** Controllers of the v2 hierarchy, set on `<parent>/<sandbox>` (cgroup-v2 containment's folder). */
  v2: Set<Controller>;
  /** Folder of the v1 hierarchy, per controller, that holds the sandboxes' cgroups. */
  v1: Partial<Record<Controller, string>>;
  /** Why a controller cannot limit sandboxes here. */
  problems: Partial<Record<Controller, string>>;
}

/** Mount points of the v1 hierarchies, by controller, from a mountinfo table. */
export function cgroup1Mounts(mountinfo: string): Partial<Record<Controller, string>> {
  const found: Partial<Record<Controller, string>> = {};
  for (const line of mountinfo.split('\n')) {
    const [before, after] = line.split(' - ');
    const [fstype, , options = ''] = after?.split(' ') ?? [];
    if (fstype !== 'cgroup') continue;
    const fields = before!.split(' ');
    if (!fields[5]?.split(',').includes('rw')) continue;
    const mount = fields[4]?.replace(/\\([0-7]{3})/g, (_, octal: string) =>
      String.fromCharCode(Number.parseInt(octal, 8)),
    );
    for (const controller of controllers)
      if (mount && options.split(',').includes(controller)) found[controller] ??= mount;
  }
  return found;
}

/** The runner's cgroup in the v1 hierarchy of `controller`, from /proc/self/cgroup. */
export function ownCgroup1(table: string, controller: Controller): string | undefined {
  for (const line of table.split('\n')) {
    const [id, names, path] = line.split(':');
    if (id !== '0' && names?.split(',').includes(controller) && path !== undefined) return path;
  }
  return undefined;
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Turns the v2 controllers on for the sandboxes' cgroups, where the hierarchy has them. */
function placeV2(placement: Placement): void {
  const hierarchy = cgroupHierarchy();
  if (!hierarchy) return;
  const mount = join(hierarchy.parent, '..');
  const available = new Set(read(join(mount, 'cgroup.controllers')).trim().split(/\s+/));
  for (const controller of controllers) {
    if (!available.has(controller)) continue;
    try {
      // The root's subtree_control hands the controller to `longhaul`, whose own hands it to each sandbox.
      if (!read(join(hierarchy.parent, 'cgroup.controllers')).split(/\s+/).includes(controller))
        writeFileSync(join(mount, 'cgroup.subtree_control'), `+${controller}`);
      if (!read(join(hierarchy.parent, 'cgroup.subtree_control')).split(/\s+/).includes(controller))
        writeFileSync(join(hierarchy.parent, 'cgroup.subtree_control'), `+${controller}`);
      placement.v2.add(controller);
    } catch (error) {
      placement.problems[controller] =
        `the cgroup v2 hierarchy at ${mount} has the ${controller} controller but will not hand it to ${hierarchy.parent} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
    }
  }
}

/** Folders under the runner's own v1 cgroups for the controllers the v2 hierarchy lacks. */
function placeV1(placement: Placement): void {
  const mounts = cgroup1Mounts(read('/proc/self/mountinfo'));
  const own = read('/proc/self/cgroup');
  for (const controller of controllers) {
    if (placement.v2.has(controller) || placement.problems[controller]) continue;
    const mount = mounts[controller];
    const path = ownCgroup1(own, controller);
    if (mount === undefined || path === undefined) {
      placement.problems[controller] =
        `no cgroup hierarchy has the ${controller} controller${cgroupProblem() ? ` (${cgroupProblem()})` : ''}`;
      continue;
    }
    const parent = join(mount, path, 'longhaul');
    try {
      mkdirSync(parent, { recursive: true });
      const probe = join(parent, `probe-${process.pid}`);
      mkdirSync(probe, { recursive: true });
      const file = controller === 'memory' ? 'memory.limit_in_bytes' : 'pids.max';
      const present = existsSync(join(probe, file));
      rmdirSync(probe);
      removeIfEmptySync(parent);
      if (!present) throw new Error(`no ${file} in a cgroup made there`);
      placement.v1[controller] = parent;
    } catch (error) {
      placement.problems[controller] =
        `the ${controller} cgroup hierarchy at ${mount} is not writable by this user (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
    }
  }
}

/**
 * The `longhaul` folder in the runner's own v1 cgroup is made with a sandbox's and removed with
 * the last: a cgroup that holds a child cannot be removed, and the runner's may belong to whoever
 * started it (a service manager removes its cgroups when they are done).
 */
function removeIfEmptySync(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // another sandbox's is still there, or it is gone
  }
}

let placed: Placement | undefined;

function placement(): Placement {
  if (placed) return placed;
  placed = { v2: new Set(), v1: {}, problems: {} };
  placeV2(placed);
  placeV1(placed);
  return placed;
}

/** Why `controller` cannot limit sandboxes on this host, or undefined when it can. */
export function limitProblem(controller: Controller): string | undefined {
  return placement().problems[controller];
}

/** How each controller is enforced here: `cgroup v2`, `cgroup v1`, or undefined. */
export function limitMechanism(controller: Controller): 'cgroup v2' | 'cgroup v1' | undefined {
  const where = placement();
  if (where.v2.has(controller)) return 'cgroup v2';
  return where.v1[controller] === undefined ? undefined : 'cgroup v1';
}

async function counter(file: string, key: string): Promise<number> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return Number(new RegExp(`^${key}\\s+(\\d+)$`, 'm').exec(text)?.[1] ?? 0);
}

/** The memory and pids limits of one sandbox, in the cgroups this host offers for them. */
export class SandboxLimits {
  private constructor(
    private readonly settings: LimitSettings,
    /** The v1 cgroups of the sandbox, by controller. */
    readonly v1: Partial<Record<Controller, string>>,
    private readonly v2: ReadonlySet<Controller>,
    /** The sandbox's v2 cgroup, set once the containment has made it. */
    private v2Dir?: string,
  ) {}

  static async open(sandboxId: string, settings: LimitSettings): Promise<SandboxLimits> {
    const where = placement();
    const v1: Partial<Record<Controller, string>> = {};
    try {
      for (const controller of controllers) {
        const parent = where.v1[controller];
        if (parent === undefined) continue;
        const dir = join(parent, sandboxId);
        await mkdir(dir, { recursive: true });
        v1[controller] = dir;
        if (controller === 'pids') await writeFile(join(dir, 'pids.max'), String(settings.pids));
        else {
          await writeFile(join(dir, 'memory.limit_in_bytes'), String(settings.memoryBytes));
          // Swap counts too (memory and swap together), as Docker's MemorySwap = Memory.
          if (existsSync(join(dir, 'memory.memsw.limit_in_bytes')))
            await writeFile(join(dir, 'memory.memsw.limit_in_bytes'), String(settings.memoryBytes));
        }
      }
    } catch (error) {
      // A limit that cannot be set leaves no cgroup behind.
      await removeLimitCgroups(Object.values(v1)).catch(() => undefined);
      throw error;
    }
    return new SandboxLimits(settings, v1, where.v2);
  }

  /** Whether a cgroup holds the sandbox to its limit of `controller`. */
  holds(controller: Controller): boolean {
    return this.v2.has(controller) || this.v1[controller] !== undefined;
  }

  /** Whether the v2 cgroup of the sandbox carries limits (then `applyV2` must run on it). */
  get usesV2(): boolean {
    return this.v2.size > 0;
  }

  /** Sets the v2 limits on the sandbox's v2 cgroup, `dir`; again whenever it is made anew. */
  async applyV2(dir: string): Promise<void> {
    this.v2Dir = dir;
    if (this.v2.has('pids')) await writeFile(join(dir, 'pids.max'), String(this.settings.pids));
    if (this.v2.has('memory')) {
      await writeFile(join(dir, 'memory.max'), String(this.settings.memoryBytes));
      if (existsSync(join(dir, 'memory.swap.max'))) await writeFile(join(dir, 'memory.swap.max'), '0');
    }
  }

  /** The cgroup.procs files (v1) a command writes its pid to before it runs. */
  procs(): string[] {
    return Object.values(this.v1).map((dir) => join(dir, 'cgroup.procs'));
  }

  async counters(): Promise<LimitCounters> {
    const memory = this.v1.memory;
    const pids = this.v1.pids;
    const [oomKills, pidsMax] = await Promise.all([
      memory !== undefined
        ? counter(join(memory, 'memory.oom_control'), 'oom_kill')
        : this.v2Dir !== undefined && this.v2.has('memory')
          ? counter(join(this.v2Dir, 'memory.events'), 'oom_kill')
          : 0,
      pids !== undefined
        ? counter(join(pids, 'pids.events'), 'max')
        : this.v2Dir !== undefined && this.v2.has('pids')
          ? counter(join(this.v2Dir, 'pids.events'), 'max')
          : 0,
    ]);
    return { oomKills, pidsMax };
  }

  /** Removes the v1 cgroups, once the processes in them are gone (the v2 one goes with the containment). */
  async close(): Promise<void> {
    await removeLimitCgroups(Object.values(this.v1));
  }
}

/**
 * Removes a sandbox's v1 cgroups (a dead runner's are named in its label) once they are empty,
 * and their `longhaul` folder when no other sandbox's is left in it.
 */
export async function removeLimitCgroups(dirs: readonly string[]): Promise<void> {
  await Promise.all(
    dirs.map(async (dir) => {
      await removeCgroup(dir);
      removeIfEmptySync(join(dir, '..'));
    }),
  );
}
