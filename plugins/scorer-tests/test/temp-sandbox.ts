import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import {
  type ExecOptions,
  type ExecResult,
  type FileEntry,
  FolderJudgeArea,
  type Sandbox,
  type SandboxProcess,
  type SnapshotRef,
  type SnapshotStore,
  type WorkspaceFile,
} from '@longhaul/core';

/**
 * A minimal sandbox over a temp directory: enough to drive scorers in unit tests. Nothing is
 * isolated: its judge area is a folder beside the workspace (`guarded: false`), as in the local
 * environment's plain mode.
 */
export class TempSandbox implements Sandbox {
  readonly id = `temp-${Math.random().toString(36).slice(2)}`;
  readonly hostAddress = '127.0.0.1';
  readonly workspace: string;
  private readonly running = new Set<() => Promise<void>>();

  private constructor(
    private readonly root: string,
    private readonly snapshots: SnapshotStore,
    readonly judge: FolderJudgeArea,
  ) {
    this.workspace = join(root, 'workspace');
  }

  static async create(snapshots: SnapshotStore, from?: SnapshotRef): Promise<TempSandbox> {
    const root = await mkdtemp(join(tmpdir(), 'longhaul-ws-'));
    const judge = await new FolderJudgeArea(join(root, 'judge'), false).create();
    const sandbox = new TempSandbox(root, snapshots, judge);
    await mkdir(sandbox.workspace);
    if (from) await sandbox.restore(from);
    return sandbox;
  }

  exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const child = spawn(argv[0]!, argv.slice(1), {
        cwd: options.cwd ? join(this.workspace, options.cwd) : this.workspace,
        env: { PATH: process.env.PATH ?? '', HOME: this.workspace, ...options.env },
        detached: true,
      });
      let stdout = '';
      let stderr = '';
      let timedOut = false;
      const timer = options.timeoutMs
        ? setTimeout(() => {
            timedOut = true;
            process.kill(-child.pid!, 'SIGKILL');
          }, options.timeoutMs)
        : undefined;
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ exitCode: code, stdout, stderr, timedOut, durationMs: Date.now() - started });
      });
      child.stdin.on('error', () => {});
      child.stdin.end(options.stdin ?? '');
    });
  }

  /** A background process (a solution's server); killed with its process group. */
  async start(
    argv: string[],
    options: Omit<ExecOptions, 'timeoutMs' | 'stdin'> = {},
  ): Promise<SandboxProcess> {
    const started = Date.now();
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: options.cwd ? join(this.workspace, options.cwd) : this.workspace,
      env: { PATH: process.env.PATH ?? '', HOME: this.workspace, ...options.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const ended = new Promise<ExecResult>((resolve) => {
      child.on('error', (error) => {
        stderr += String(error);
        resolve({ exitCode: 127, stdout, stderr, timedOut: false, durationMs: Date.now() - started });
      });
      child.on('close', (code) =>
        resolve({ exitCode: code, stdout, stderr, timedOut: false, durationMs: Date.now() - started }),
      );
    });
    const kill = async () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
      await ended;
    };
    this.running.add(kill);
    void ended.then(() => this.running.delete(kill));
    return { pid: child.pid, output: () => ({ stdout, stderr }), wait: () => ended, kill };
  }

  async readFile(path: string): Promise<Uint8Array> {
    return readFile(join(this.workspace, path));
  }

  async writeFile(path: string, data: string | Uint8Array, options?: { mode?: number }): Promise<void> {
    await mkdir(dirname(join(this.workspace, path)), { recursive: true });
    await writeFile(join(this.workspace, path), data);
    if (options?.mode) await chmod(join(this.workspace, path), options.mode);
  }

  async remove(path: string): Promise<void> {
    await rm(join(this.workspace, path), { recursive: true, force: true });
  }

  async list(path = '.', options?: { recursive?: boolean }): Promise<FileEntry[]> {
    const entries = await readdir(join(this.workspace, path), {
      recursive: options?.recursive ?? false,
      withFileTypes: true,
    });
    const out: FileEntry[] = [];
    for (const entry of entries) {
      const full = join(entry.parentPath, entry.name);
      const info = await stat(full);
      out.push({
        path: relative(this.workspace, full).split(sep).join('/'),
        type: entry.isDirectory() ? 'dir' : entry.isSymbolicLink() ? 'symlink' : 'file',
        size: info.size,
        mode: info.mode & 0o777,
      });
    }
    return out.sort((a, b) => a.path.localeCompare(b.path));
  }

  async pull(): Promise<WorkspaceFile[]> {
    const files = (await this.list('.', { recursive: true })).filter((entry) => entry.type === 'file');
    return Promise.all(
      files.map(async (entry) => ({
        path: entry.path,
        mode: entry.mode,
        data: await this.readFile(entry.path),
      })),
    );
  }

  async push(files: WorkspaceFile[]): Promise<void> {
    await rm(this.workspace, { recursive: true, force: true });
    await mkdir(this.workspace, { recursive: true });
    for (const file of files) await this.writeFile(file.path, file.data, { mode: file.mode });
  }

  async snapshot(): Promise<SnapshotRef> {
    return this.snapshots.put(await this.pull());
  }

  async restore(ref: SnapshotRef): Promise<void> {
    await this.push(await this.snapshots.get(ref));
  }

  async expose(port: number): Promise<string> {
    return `http://127.0.0.1:${port}`;
  }

  async close(): Promise<void> {
    await Promise.all([...this.running].map((kill) => kill()));
    await rm(this.root, { recursive: true, force: true });
  }
}
