import { spawn } from 'node:child_process';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  defaultWorkspaceExcludes,
  type ExecOptions,
  type ExecResult,
  excludeMatcher,
  type FileEntry,
  FolderWorkspace,
  type PullOptions,
  type ReadFileOptions,
  type Sandbox,
  type SandboxProcess,
  type WorkspaceFile,
} from '@longhaul/core';

/**
 * The sandbox contract over a temp directory on this machine: real commands (sh, python3), real
 * files, no isolation. Enough for the tools, which only ever use the contract.
 */
export class DirSandbox implements Sandbox {
  readonly id = 'dir';
  readonly hostAddress = '127.0.0.1';
  readonly exposed: number[] = [];
  private readonly children = new Set<number>();

  /** Files through the kernel's FolderWorkspace, as the local environment handles them. */
  private readonly files: FolderWorkspace;

  private constructor(readonly workspace: string) {
    this.files = new FolderWorkspace(workspace, excludeMatcher(defaultWorkspaceExcludes), 32 * 1024 * 1024);
  }

  static async create(files: Record<string, string> = {}): Promise<DirSandbox> {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'longhaul-ide-')));
    const sandbox = new DirSandbox(root);
    for (const [path, text] of Object.entries(files)) await sandbox.writeFile(path, text);
    return sandbox;
  }

  private abs(path: string): string {
    const abs = resolve(this.workspace, path);
    if (abs !== this.workspace && !abs.startsWith(`${this.workspace}/`)) throw new Error(`${path} escapes`);
    return abs;
  }

  async exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    const process = await this.start(argv, options);
    let timedOut = false;
    const timer = options.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          void process.kill();
        }, options.timeoutMs)
      : undefined;
    const onAbort = () => void process.kill();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return { ...(await process.wait()), timedOut };
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  async start(argv: string[], options: ExecOptions = {}): Promise<SandboxProcess> {
    const started = Date.now();
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: this.abs(options.cwd ?? '.'),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
      detached: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (options.stdin !== undefined) child.stdin?.end(options.stdin);
    const pid = child.pid;
    if (pid) this.children.add(pid);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    const kill = () => {
      try {
        if (pid) process.kill(-pid, 'SIGKILL');
      } catch {}
    };
    const done = new Promise<ExecResult>((resolveDone) => {
      child.on('error', (error: NodeJS.ErrnoException) => {
        resolveDone({
          exitCode: error.code === 'ENOENT' ? 127 : 126,
          stdout,
          stderr: String(error),
          timedOut: false,
          durationMs: Date.now() - started,
        });
      });
      child.on('close', (code) => {
        if (pid) this.children.delete(pid);
        resolveDone({ exitCode: code, stdout, stderr, timedOut: false, durationMs: Date.now() - started });
      });
    });
    return {
      pid,
      output: () => ({ stdout, stderr }),
      wait: () => done,
      kill: async () => {
        kill();
        await done;
      },
    };
  }

  async readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    return this.files.readFile(path, options);
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    await this.files.writeFile(path, data);
  }

  async remove(path: string): Promise<void> {
    await this.files.remove(path);
  }

  async list(path = '.', options: { recursive?: boolean } = {}): Promise<FileEntry[]> {
    return this.files.list(path, options.recursive ?? false);
  }

  async pull(options: PullOptions = {}): Promise<WorkspaceFile[]> {
    return this.files.pull(options);
  }

  async push(): Promise<void> {
    throw new Error('not used');
  }
  async snapshot(): Promise<string> {
    throw new Error('not used');
  }
  async restore(): Promise<void> {
    throw new Error('not used');
  }

  async expose(port: number): Promise<string> {
    this.exposed.push(port);
    return `http://127.0.0.1:${port}`;
  }

  async text(path: string): Promise<string> {
    return (await this.readFile(path)).toString();
  }

  async close(): Promise<void> {
    for (const pid of this.children)
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {}
    await rm(this.workspace, { recursive: true, force: true });
  }
}
