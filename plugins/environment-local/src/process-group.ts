import { setTimeout as delay } from 'node:timers/promises';
import { type LaunchedProcess, type LaunchFailure, processLauncher } from '@longhaul/core';

/** Output kept up to a byte cap; the rest is counted as dropped. */
class Capture {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  truncated = false;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    const room = this.cap - this.bytes;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.bytes += kept.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

export interface GroupSpawnOptions {
  cwd: string;
  env: Record<string, string>;
  stdin?: string | Uint8Array;
  maxOutputBytes: number;
  killGraceMs: number;
  /**
   * Runs once the leader has exited and its group was killed, before the command counts as done:
   * where the sandbox ends what escaped the group (processes in sessions of their own).
   */
  afterExit?: () => Promise<unknown>;
}

export interface GroupExit {
  exitCode: number | null;
  /** The signal that ended the leader, when one did. */
  signal?: NodeJS.Signals;
  /** The program could not be started (not found, not executable). */
  spawnError?: string;
  /** The system's code for that, e.g. ENOENT or EACCES. */
  spawnCode?: string;
}

/** How long leftover pipes may stay open after the group is gone before they are cut. */
const pipeDrainMs = 2_000;

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Leaders of groups still running. Detached groups outlive the runner unless it kills them. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Kills every group still running; runs when the process exits, so no sandbox command outlives it. */
export function killLiveGroups(): void {
  for (const pid of liveGroups) signalGroup(pid, 'SIGKILL');
  liveGroups.clear();
}

function track(pid: number | undefined): void {
  if (pid === undefined) return;
  liveGroups.add(pid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', killLiveGroups);
  }
}

/**
 * A command run as the leader of its own process group, so that stopping it stops everything it
 * started. When the leader exits, whatever it left running in the group is killed too: a command
 * that daemonizes a child would otherwise keep the pipes open and outlive its sandbox. Commands
 * are started by the kernel's process launcher, a small process of its own, so the runner never
 * forks; a launcher that dies makes `done` reject with class `sandbox`.
 */
export class ProcessGroup {
  readonly pid: number | undefined;
  readonly done: Promise<GroupExit>;
  private exited = false;
  private readonly leaderExit: Promise<void>;

  /** Starts `argv`; resolves once it runs (or could not be started: see `done`). */
  static async start(argv: string[], options: GroupSpawnOptions): Promise<ProcessGroup> {
    const stdout = new Capture(options.maxOutputBytes);
    const stderr = new Capture(options.maxOutputBytes);
    const launched = await processLauncher.launch(argv, {
      cwd: options.cwd,
      env: options.env,
      stdin: options.stdin,
      maxOutputBytes: options.maxOutputBytes,
      onOutput: (stream, chunk) => (stream === 'stdout' ? stdout : stderr).push(chunk),
    });
    return new ProcessGroup(launched, stdout, stderr, options);
  }

  private constructor(
    launched: LaunchedProcess | LaunchFailure,
    readonly stdout: Capture,
    readonly stderr: Capture,
    private readonly options: GroupSpawnOptions,
  ) {
    if (launched.pid === undefined) {
      this.exited = true;
      this.leaderExit = Promise.resolve();
      const { spawnError, spawnCode } = launched;
      this.done = Promise.resolve({ exitCode: null, spawnError, ...(spawnCode ? { spawnCode } : {}) });
      return;
    }
    const { pid } = launched;
    this.pid = pid;
    track(pid);
    const exit = launched.exit.finally(() => {
      this.exited = true;
      liveGroups.delete(pid);
    });
    this.leaderExit = exit.then(
      () => undefined,
      () => undefined,
    );
    const cleaned = this.leaderExit.then(() => options.afterExit?.()).catch(() => undefined);
    void cleaned.then(() => delay(pipeDrainMs, undefined, { ref: false })).then(() => launched.closePipes());
    this.done = Promise.all([exit, launched.closed, cleaned]).then(([result]) => ({
      exitCode: result.exitCode,
      ...(result.signal ? { signal: result.signal } : {}),
    }));
  }

  /** SIGTERM to the group, then SIGKILL after the grace period. */
  async stop(): Promise<void> {
    if (this.pid === undefined || this.exited) return;
    signalGroup(this.pid, 'SIGTERM');
    const grace = delay(this.options.killGraceMs).then(() => 'grace' as const);
    if ((await Promise.race([this.leaderExit, grace])) === 'grace') signalGroup(this.pid, 'SIGKILL');
    await this.leaderExit;
  }
}
