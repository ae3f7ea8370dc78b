import { readdir, stat, statfs } from 'node:fs/promises';
import { processLauncher } from '../process/launcher.js';

/** How often the free space of the files' file system is read while commands run (one statfs). */
const probeMs = 50;
/** Measures come at least this often, and at most this seldom, while commands run. */
const minIntervalMs = 250;
const maxIntervalMs = 5_000;
/** The pause before the next measure, as a multiple of what one took: at most 1/20 of a core. */
const pacing = 20;
/** A measure called early (the file system lost more than the room left) waits this multiple. */
const earlyPacing = 2;

export interface DiskWatchOptions {
  /** Bytes the sandbox's files may take. */
  limitBytes: number;
  /** Bytes the sandbox's files take now (e.g. `diskUsage`), or undefined when they cannot be measured. */
  measure: () => Promise<number | undefined>;
  /**
   * A folder on the file system the files are on. Its free space, read every 50 ms, calls a
   * measure early once the file system lost more since the last one than the sandbox had left
   * under its limit: whoever wrote it, the sandbox may be past its limit.
   */
  probe?: string;
  /** The files are past the limit and grew since the last measure: stop what writes them. */
  onExceeded: (usedBytes: number) => Promise<void>;
}

/**
 * The disk limit of a sandbox whose file system gives it no quota, watched while its commands
 * run. Measuring (a `du`) costs time in the number of files, so measures are paced by their cost
 * (every 250 ms to 5 s, 20 times what one took); between two, a statfs every 50 ms calls one
 * early when the file system lost more than the room left (twice a measure's cost after the
 * last). Past the limit and grown since the last measure, `onExceeded` stops the sandbox. While
 * the files stay past the limit without growing, commands run: one that removes files brings
 * the sandbox back under it. What a writer adds between its crossing and the stop is the
 * overshoot: its rate times about 50 ms plus a measure (see the environments' READMEs).
 */
export class DiskWatch {
  private running = 0;
  /** Counts the times commands began to run after none did: a measure judges only its own. */
  private session = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The measure after the last command ended, waiting for its turn. */
  private settling: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private queued: 'judge' | 'record' | undefined;
  private last: number | undefined;
  private freeAtLast: number | undefined;
  private nextPaced = 0;
  private nextEarly = 0;
  private closed = false;

  constructor(private readonly options: DiskWatchOptions) {}

  /** A command started: watch until the last one ends. */
  begin(): void {
    this.running++;
    if (this.running !== 1 || this.closed) return;
    this.session++;
    this.nextPaced = Date.now() + minIntervalMs;
    // The first command has what the files held when it began measured at once, to judge its
    // growth by (a sandbox opened on a workspace past the limit runs until it grows); later ones
    // have the measure after their predecessors' end.
    if (this.last === undefined) void this.measureSoon('record');
    this.loop();
  }

  /**
   * A command ended. After the last one the files are measured once more, so the next command is
   * judged by what they hold, not by what a command that removed files left behind. That measure
   * only records (it stops nothing) and waits twice what the last one took, so commands ending
   * in quick succession cost at most a third of a core however many files there are.
   */
  end(): void {
    this.running = Math.max(0, this.running - 1);
    if (this.running > 0 || this.closed) return;
    clearTimeout(this.settling);
    this.settling = setTimeout(
      () => void this.measureSoon('record'),
      Math.max(0, this.nextEarly - Date.now()),
    );
    this.settling.unref();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.settling);
  }

  private loop(): void {
    clearTimeout(this.timer);
    if (this.closed || this.running === 0) return;
    this.timer = setTimeout(() => void this.probe().finally(() => this.loop()), probeMs);
    this.timer.unref();
  }

  private async probe(): Promise<void> {
    const now = Date.now();
    if (now >= this.nextPaced || (now >= this.nextEarly && (await this.lostMoreThanRoom())))
      await this.measureSoon('judge');
  }

  /** Whether the file system lost more since the last measure than the sandbox had left. */
  private async lostMoreThanRoom(): Promise<boolean> {
    if (this.last === undefined || this.freeAtLast === undefined) return false;
    const free = await this.free();
    return free !== undefined && this.freeAtLast - free > this.options.limitBytes - this.last;
  }

  private async free(): Promise<number | undefined> {
    if (this.options.probe === undefined) return undefined;
    try {
      const stats = await statfs(this.options.probe);
      return stats.bfree * stats.bsize;
    } catch {
      return undefined;
    }
  }

  /**
   * One measure at a time; one asked for while another waits is the same one, judging if either
   * asked to. `record` only notes what the files hold.
   */
  private measureSoon(kind: 'judge' | 'record'): Promise<void> {
    if (this.queued !== undefined) {
      if (kind === 'judge') this.queued = 'judge';
      return this.chain;
    }
    this.queued = kind;
    this.chain = this.chain.then(async () => {
      const judge = this.queued === 'judge';
      this.queued = undefined;
      if (!this.closed) await this.measure(judge).catch(() => undefined);
    });
    return this.chain;
  }

  private async measure(judge: boolean): Promise<void> {
    const started = Date.now();
    // Commands that begin while it runs were not measured by it: it may stop only those it saw.
    const session = judge && this.running > 0 ? this.session : undefined;
    // Free space first: what is written while `du` runs counts as lost at the next probe.
    const free = await this.free();
    const used = await this.options.measure();
    const cost = Date.now() - started;
    this.nextPaced = Date.now() + Math.min(maxIntervalMs, Math.max(minIntervalMs, cost * pacing));
    this.nextEarly = Date.now() + Math.max(probeMs, cost * earlyPacing);
    if (used === undefined) return;
    const grew = this.last === undefined || used > this.last;
    this.last = used;
    this.freeAtLast = free;
    const watched = session === this.session && this.running > 0;
    if (used > this.options.limitBytes && grew && watched && !this.closed)
      await this.options.onExceeded(used);
  }
}

/**
 * Bytes the files under `paths` take on disk, or undefined: `du` (no links followed, one file
 * system, each inode once), run through `prefix` (e.g. a setpriv that drops to the sandbox's
 * user, so nothing the agent made can steer it).
 */
export async function diskUsage(
  paths: readonly string[],
  prefix: readonly string[] = [],
): Promise<number | undefined> {
  let output = '';
  const launched = await processLauncher.launch(
    [...prefix, 'du', '-s', '-x', '-c', '--block-size=1', '--', ...paths],
    {
      cwd: '/',
      env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' },
      maxOutputBytes: 64 * 1024,
      onOutput: (stream, chunk) => {
        if (stream === 'stdout') output += chunk.toString('utf8');
      },
    },
  );
  if (launched.pid === undefined) return undefined;
  await launched.exit.catch(() => undefined);
  await launched.closed;
  // du exits non-zero when a file vanished as it looked: its total still stands.
  const total = /^(\d+)\s+total$/m.exec(output)?.[1];
  return total === undefined ? undefined : Number(total);
}

/** statfs's type of tmpfs and ramfs: what lies there is memory, counted against the memory limit. */
const memoryFileSystems = new Set([0x01021994, 0x858458f6]);

/**
 * Bytes of the files that processes `pids` hold open after they were removed: `du` no longer
 * sees them, but the file system keeps them until the last holder closes them, so a writer that
 * removes what it writes as it goes would fill the disk unseen. Each file counts once; files in
 * memory (tmpfs, memfd) are left to the memory limit. Reads `/proc/<pid>/fd` (root's, for other
 * users' processes); a process gone meanwhile counts nothing.
 */
export async function heldRemovedBytes(pids: readonly number[]): Promise<number> {
  const seen = new Set<string>();
  let total = 0;
  for (const pid of pids) {
    const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const path = `/proc/${pid}/fd/${fd}`;
      const file = await stat(path, { bigint: false }).catch(() => undefined);
      if (file === undefined || !file.isFile() || file.nlink !== 0) continue;
      const key = `${file.dev}:${file.ino}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const where = await statfs(path).catch(() => undefined);
      if (where !== undefined && memoryFileSystems.has(where.type)) continue;
      total += file.blocks * 512;
    }
  }
  return total;
}
