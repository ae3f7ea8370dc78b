import type { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { execa } from 'execa';

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
 * that daemonizes a child would otherwise keep the pipes open and outlive its sandbox.
 */
export class ProcessGroup {
  readonly pid: number | undefined;
  readonly stdout: Capture;
  readonly stderr: Capture;
  readonly done: Promise<GroupExit>;
  private exited = false;
  private readonly leaderExit: Promise<void>;

  constructor(
    argv: string[],
    private readonly options: GroupSpawnOptions,
  ) {
    this.stdout = new Capture(options.maxOutputBytes);
    this.stderr = new Capture(options.maxOutputBytes);
    const [file, ...args] = argv;
    if (file === undefined) throw new Error('exec needs a program: argv is empty');
    const subprocess = execa(file, args, {
      cwd: options.cwd,
      env: options.env,
      extendEnv: false,
      detached: true,
      reject: false,
      buffer: false,
      ...(options.stdin === undefined ? { stdin: 'ignore' as const } : { input: options.stdin }),
    });
    this.pid = subprocess.pid;
    track(this.pid);
    subprocess.stdout?.on('data', (chunk: Buffer) => this.stdout.push(chunk));
    subprocess.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk));
    this.leaderExit = new Promise((resolve) => {
      subprocess.once('exit', () => {
        this.exited = true;
        if (this.pid !== undefined) {
          signalGroup(this.pid, 'SIGKILL');
          liveGroups.delete(this.pid);
        }
        resolve();
      });
      subprocess.once('error', () => {
        this.exited = true;
        resolve();
      });
    });
    const cleaned = this.leaderExit.then(() => options.afterExit?.()).catch(() => undefined);
    const cutPipes = cleaned
      .then(() => delay(pipeDrainMs, undefined, { ref: false }))
      .then(() => {
        for (const stream of [subprocess.stdout, subprocess.stderr] as (Readable | null)[]) stream?.destroy();
      });
    const finished = Promise.race([subprocess, cutPipes.then(() => subprocess)]);
    this.done = Promise.all([finished, cleaned]).then(([result]) => {
      if (result.exitCode === undefined && result.signal === undefined && result.failed) {
        const { code } = result as { code?: string };
        return { exitCode: null, spawnError: result.shortMessage ?? result.message, spawnCode: code };
      }
      return { exitCode: result.exitCode ?? null };
    });
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
