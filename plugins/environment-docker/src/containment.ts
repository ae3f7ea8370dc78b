import { setTimeout as delay } from 'node:timers/promises';
import { ClassifiedError } from '@longhaul/core';
import { type ContainerCgroup, type ProcessEntry, processTable } from './proc.js';

/** The process a call runs, as the host sees it. */
export interface Leader {
  pid: number;
  /** Its start time; undefined when it had exited before it was seen. */
  start: number | undefined;
}

/** One `docker exec` whose process tree lives while the call runs. */
export interface Call {
  /** Started with `start()`: a sweep ends it. */
  readonly background: boolean;
  /** The call's process once Docker reported it (pid 0 when it never could). */
  readonly leader: Leader | undefined;
  /** Resolves once `leader` is set. */
  leaderKnown(): Promise<unknown>;
  /** A sweep ended the call, or (`disk`) the sandbox was stopped for going past its disk limit. */
  swept(reason?: 'disk'): void;
}

const gone = (p: ProcessEntry) => p.state === 'Z' || p.state === 'X';
const same = (p: ProcessEntry, leader: Leader) =>
  p.pid === leader.pid && (leader.start === undefined || p.start === leader.start);

/**
 * Keeps a container's processes to the calls that started them. `docker exec` makes each call's
 * program a child of the container runtime, outside the container, so a call's process tree is
 * everything below that program; a process that detaches (setsid, double fork, nohup, disown) is
 * handed to the container's init and leaves every tree. Whenever a call ends, and at a sweep,
 * every process is killed that is neither the container's init and keeper (`sleep infinity`) nor
 * in the tree of a call still running. So nothing outlives the call that started it, and a
 * process that detaches ends at the end of the next call at the latest.
 */
export class Containment {
  private readonly calls = new Set<Call>();

  private constructor(
    private readonly cgroup: ContainerCgroup,
    private readonly keepers: ProcessEntry[],
  ) {}

  /** Called before the container runs any command: its init and the first process init started. */
  static async of(cgroup: ContainerCgroup, initPid: number, waitMs = 10_000): Promise<Containment> {
    for (const until = Date.now() + waitMs; ; ) {
      const table = await processTable(await cgroup.processes());
      const init = table.find((p) => p.pid === initPid);
      const keeper = table.filter((p) => p.ppid === initPid).sort((a, b) => a.start - b.start)[0];
      if (init !== undefined && keeper !== undefined) return new Containment(cgroup, [init, keeper]);
      if (Date.now() > until)
        throw new ClassifiedError(
          'sandbox',
          `the container's keeper process did not start within ${waitMs} ms`,
        );
      await delay(20);
    }
  }

  add(call: Call): void {
    this.calls.add(call);
  }

  /** The call ended or was stopped: its tree and every process outside a running call's go. */
  async end(call: Call): Promise<void> {
    this.calls.delete(call);
    await this.reap(call.leader === undefined ? [] : [call.leader]);
  }

  /** Ends every process but the keeper's and those of running calls; background calls end too. */
  async sweep(): Promise<void> {
    const background = [...this.calls].filter((call) => call.background);
    await Promise.all(background.map((call) => call.leaderKnown()));
    for (const call of background) {
      this.calls.delete(call);
      call.swept();
    }
    const left = await this.reap(background.flatMap((call) => (call.leader ? [call.leader] : [])));
    if (left > 0)
      throw new ClassifiedError(
        'sandbox',
        `${left} process(es) kept coming back while the sandbox was swept`,
      );
  }

  /**
   * Ends every process but the keeper's, those of running calls too, each call told it was
   * stopped for the disk limit: the sandbox's files went past it and still grow.
   */
  async stopForDisk(): Promise<void> {
    const calls = [...this.calls];
    await Promise.all(calls.map((call) => call.leaderKnown()));
    for (const call of calls) {
      this.calls.delete(call);
      call.swept('disk');
    }
    await this.reap(calls.flatMap((call) => (call.leader ? [call.leader] : [])));
  }

  /**
   * SIGKILLs every stray until none is left, so a process that forks while it is being killed (a
   * fork bomb) is caught too. `doomed` are leaders of calls that ended while they still ran.
   * Returns how many strays were still there when it gave up.
   */
  private async reap(doomed: Leader[], rounds = 100): Promise<number> {
    let targets: number[] = [];
    for (let round = 0; round < rounds; round++) {
      targets = this.strays(await processTable(await this.cgroup.processes()), doomed);
      if (targets.length === 0) return 0;
      for (const pid of targets) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await delay(round < 10 ? 5 : 50);
    }
    return targets.length;
  }

  private strays(table: ProcessEntry[], doomed: Leader[]): number[] {
    const inside = new Set(table.map((p) => p.pid));
    const kept = new Set(table.filter((p) => this.keepers.some((k) => same(p, k))).map((p) => p.pid));
    const calls = [...this.calls];
    const running = calls.flatMap((call) => (call.leader ? [call.leader] : []));
    // A call whose process Docker has not reported yet may be any process the runtime just
    // started in the container: those are spared until every running call is known.
    const unknown = calls.some((call) => call.leader === undefined);
    const roots = table.filter(
      (p) =>
        !kept.has(p.pid) &&
        !inside.has(p.ppid) &&
        (running.some((l) => same(p, l)) || (unknown && !doomed.some((l) => same(p, l)))),
    );
    const children = new Map<number, number[]>();
    for (const p of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
    const queue = roots.map((p) => p.pid);
    for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
      if (kept.has(pid)) continue;
      kept.add(pid);
      queue.push(...(children.get(pid) ?? []));
    }
    return table.filter((p) => !kept.has(p.pid) && !gone(p)).map((p) => p.pid);
  }
}
