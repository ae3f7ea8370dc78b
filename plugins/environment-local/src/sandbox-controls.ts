import type { CommandFrame } from './command-wrapper.js';
import { cgroupHierarchy, processesIn, SandboxCgroup } from './sandbox-cgroup.js';
import { type LimitCounters, type LimitSettings, SandboxLimits } from './sandbox-limits.js';
import { endUserProcesses, releaseSandboxUser, type SandboxUser } from './sandbox-user.js';

/**
 * What holds a local sandbox's commands in, in either isolation mode, as far as this host allows:
 * a cgroup per call (v2, as root: nothing it starts can leave, and ending it ends all of it), the
 * sandbox's memory and pids limits (cgroups), per-process limits (prlimit: processes of its user,
 * bytes per file, no core dumps), and a host user of its own (as root).
 */
export class SandboxControls {
  private constructor(
    readonly settings: LimitSettings,
    readonly cgroup: SandboxCgroup | undefined,
    readonly limits: SandboxLimits | undefined,
    readonly user: SandboxUser | undefined,
  ) {}

  static async open(
    sandboxId: string,
    settings: LimitSettings,
    user: SandboxUser | undefined,
  ): Promise<SandboxControls> {
    const limits = await SandboxLimits.open(sandboxId, settings);
    const hierarchy = cgroupHierarchy();
    const cgroup =
      hierarchy === undefined
        ? undefined
        : new SandboxCgroup(hierarchy, sandboxId, limits?.usesV2 ? (dir) => limits.applyV2(dir) : undefined);
    try {
      await cgroup?.open();
    } catch (error) {
      await limits?.close().catch(() => undefined);
      throw error;
    }
    return new SandboxControls(settings, cgroup, limits, user);
  }

  /** The frame of call `call` (see command-wrapper.ts). */
  async frame(call: number): Promise<CommandFrame> {
    const procs = [
      ...(this.cgroup ? [await this.cgroup.callProcs(call)] : []),
      ...(this.limits?.procs() ?? []),
    ];
    return {
      procs,
      rlimits: {
        // Counted per user: meaningful only for a user of the sandbox's own, and only where no
        // cgroup counts them (a fork the cgroup refuses is one the result can report).
        ...(this.user && !this.limits?.holds('pids') ? { nproc: this.settings.pids } : {}),
        fsizeBytes: this.settings.diskBytes,
      },
      ...(this.user ? { user: this.user } : {}),
    };
  }

  /** The sandbox's processes, from its cgroups (none where it has none). */
  async processes(): Promise<number[]> {
    const dirs = [this.cgroup?.dir, ...Object.values(this.limits?.v1 ?? {})];
    const pids = await Promise.all(dirs.map((dir) => (dir === undefined ? [] : processesIn(dir))));
    return [...new Set(pids.flat())];
  }

  counters(): Promise<LimitCounters> | undefined {
    return this.limits?.counters();
  }

  /** Ends what call `call` left running (its cgroup), if the sandbox has cgroups. */
  endCall(call: number): Promise<void> | undefined {
    return this.cgroup?.endCall(call);
  }

  /** Ends the processes of every call but those in `running`, if the sandbox has cgroups. */
  sweep(running: ReadonlySet<number>): Promise<void> | undefined {
    return this.cgroup?.sweep(running);
  }

  /** Ends every process of the sandbox (cgroup and user) and removes its cgroups. */
  async close(): Promise<void> {
    try {
      await this.cgroup?.close();
    } finally {
      try {
        if (this.user) await endUserProcesses(this.user);
      } finally {
        await this.limits?.close();
      }
    }
  }

  /** Frees the sandbox's user for another sandbox: once its folder is gone too. */
  async release(): Promise<void> {
    if (this.user) await releaseSandboxUser(this.user);
  }
}
