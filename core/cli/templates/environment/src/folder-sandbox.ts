import { type ChildProcess, spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { constants } from 'node:os';
import { join } from 'node:path';
import {
  ClassifiedError,
  type ExecOptions,
  type ExecResult,
  type FileEntry,
  FolderJudgeArea,
  type FolderWorkspace,
  type PullOptions,
  type ReadFileOptions,
  type Sandbox,
  type SandboxProcess,
  type SnapshotRef,
  type SnapshotStore,
  type WorkspaceFile,
} from '@longhaul/core';

/**
 * A sandbox over a host folder. Every command runs in a process group of its own, so a timeout,
 * an abort or its end kills whatever it started in that group (a process that makes a session of
 * its own, with setsid, escapes it: this environment contains nothing). File methods go through
 * @longhaul/core's FolderWorkspace, which opens every path beneath the workspace and never follows
 * a link out of it, whatever the agent's commands leave there or swap in meanwhile.
 */
export class FolderSandbox implements Sandbox {
  readonly id: string;
  readonly workspace: string;
  /** Processes here run on the host: the host reaches them on loopback, and they reach it there. */
  readonly hostAddress = '127.0.0.1';
  /**
   * The judge's folder, `root/judge`, beside the workspace: scorers put hidden tests there and
   * read their results from there. This environment isolates nothing (`guarded: false`): an
   * environment that can should keep the program under test out of it (see JudgeArea).
   */
  readonly judge: FolderJudgeArea;
  private readonly home: string;
  private readonly started = new Set<ChildProcess>();
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly snapshots: SnapshotStore,
    /** The workspace folder, `root/workspace`, with its limits (excludes, file size). */
    private readonly files: FolderWorkspace,
  ) {
    this.id = root;
    this.workspace = join(root, 'workspace');
    this.home = join(root, 'home');
    this.judge = new FolderJudgeArea(join(root, 'judge'), false);
  }

  async exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    const child = await this.spawn(argv, options);
    return this.collect(child, options);
  }

  async start(
    argv: string[],
    options: Omit<ExecOptions, 'timeoutMs' | 'stdin'> = {},
  ): Promise<SandboxProcess> {
    const child = await this.spawn(argv, options);
    this.started.add(child);
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    const result = this.collect(child, options, { stdout, stderr }).finally(() => this.started.delete(child));
    return {
      pid: child.pid,
      output: () => ({ stdout: Buffer.concat(stdout).toString(), stderr: Buffer.concat(stderr).toString() }),
      wait: () => result,
      kill: async () => {
        killGroup(child);
        await result;
      },
    };
  }

  async readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    this.open();
    return this.files.readFile(path, options);
  }

  async writeFile(path: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
    this.open();
    await this.files.writeFile(path, data, options.mode ?? 0o644);
  }

  async remove(path: string): Promise<void> {
    this.open();
    await this.files.remove(path);
  }

  async list(path = '', options: { recursive?: boolean } = {}): Promise<FileEntry[]> {
    this.open();
    return this.files.list(path, options.recursive ?? false);
  }

  async pull(options: PullOptions = {}): Promise<WorkspaceFile[]> {
    this.open();
    return this.files.pull(options);
  }

  async push(files: WorkspaceFile[]): Promise<void> {
    this.open();
    await this.files.push(files);
  }

  /** Streams the workspace into the store file by file: memory does not grow with the workspace. */
  async snapshot(): Promise<SnapshotRef> {
    this.open();
    return this.files.snapshot(this.snapshots);
  }

  /** Streams the snapshot's files back; files already equal are left alone. */
  async restore(ref: SnapshotRef): Promise<void> {
    this.open();
    await this.files.restore(this.snapshots, ref);
  }

  async expose(port: number): Promise<string> {
    this.open();
    return `http://127.0.0.1:${port}`;
  }

  async sweep(): Promise<void> {
    this.open();
    for (const child of this.started) killGroup(child);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const child of this.started) killGroup(child);
    await rm(this.root, { recursive: true, force: true });
  }

  /** Throws the error class the kernel expects from a sandbox that is closed. */
  private open(): void {
    if (this.closed) throw new ClassifiedError('sandbox', `sandbox ${this.id} is closed`);
  }

  private async spawn(
    argv: string[],
    options: Omit<ExecOptions, 'timeoutMs' | 'stdin'>,
  ): Promise<ChildProcess> {
    this.open();
    const cwd = await this.files.resolve(options.cwd ?? '');
    // Commands see none of the runner's variables (its keys included): only PATH, HOME and what they are given.
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.home, ...options.env };
    return spawn(argv[0]!, argv.slice(1), { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  }

  /** Waits for a command, keeping its output up to the cap, killing its group on timeout, abort or exit. */
  private collect(
    child: ChildProcess,
    options: ExecOptions,
    buffers: { stdout: Buffer[]; stderr: Buffer[] } = { stdout: [], stderr: [] },
  ): Promise<ExecResult> {
    const startedAt = Date.now();
    const cap = options.maxOutputBytes ?? Number.POSITIVE_INFINITY;
    let truncated = false;
    let timedOut = false;
    const keep = (chunks: Buffer[]) => {
      let kept = 0;
      return (chunk: Buffer) => {
        const room = cap - kept;
        if (chunk.length > room) truncated = true;
        if (room > 0) chunks.push(chunk.subarray(0, room));
        kept += Math.min(room, chunk.length);
      };
    };
    child.stdout?.on('data', keep(buffers.stdout));
    child.stderr?.on('data', keep(buffers.stderr));
    child.stdin?.on('error', () => {}); // a command that does not read its input closes it early
    child.stdin?.end(options.stdin === undefined ? undefined : Buffer.from(options.stdin));
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            killGroup(child);
          }, options.timeoutMs);
    const onAbort = () => killGroup(child);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) killGroup(child);

    return new Promise((done) => {
      let spawnError: Error | undefined;
      child.on('error', (error) => {
        spawnError = error; // e.g. ENOENT: a program that does not exist is exit code 127, as a shell says
      });
      // What the command left running in its group ends with it.
      child.on('exit', () => killGroup(child));
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        done({
          exitCode: spawnError ? 127 : (code ?? (signal ? 128 + constants.signals[signal] : null)),
          stdout: Buffer.concat(buffers.stdout).toString(),
          stderr: spawnError ? `${spawnError.message}\n` : Buffer.concat(buffers.stderr).toString(),
          timedOut,
          ...(truncated ? { truncated } : {}),
          durationMs: Date.now() - startedAt,
        });
      });
    });
  }
}

/** Kills the process group a command leads (the command and all it started). */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}
