import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import type { ExecOptions, ExecResult, Sandbox, SandboxProcess } from '@longhaul/core';

/**
 * A sandbox that runs commands on this machine in a temp directory, as the current user, with
 * the test process's whole environment (the worst case for leaking variables). Enough of the
 * contract to run real agent CLIs: exec, start, files; process groups are killed as a whole.
 */
export class HostSandbox implements Sandbox {
  readonly id = 'host';
  readonly hostAddress = '127.0.0.1';
  readonly started: { argv: string[]; env: Record<string, string> }[] = [];
  private readonly groups = new Set<number>();

  private constructor(
    readonly root: string,
    readonly workspace: string,
  ) {}

  static async create(): Promise<HostSandbox> {
    const root = await mkdtemp(join(tmpdir(), 'longhaul-harness-'));
    await mkdir(join(root, 'workspace'));
    await mkdir(join(root, 'home'));
    return new HostSandbox(root, join(root, 'workspace'));
  }

  private path(path: string): string {
    return isAbsolute(path) ? path : join(this.workspace, path);
  }

  async start(
    argv: string[],
    options: Omit<ExecOptions, 'timeoutMs' | 'stdin'> = {},
  ): Promise<SandboxProcess> {
    return this.spawn(argv, options);
  }

  async exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    const process = this.spawn(argv, options);
    const timer = options.timeoutMs ? setTimeout(() => void process.kill(), options.timeoutMs) : undefined;
    try {
      return await process.wait();
    } finally {
      clearTimeout(timer);
    }
  }

  private spawn(argv: string[], options: ExecOptions): SandboxProcess {
    const env = { ...process.env, HOME: join(this.root, 'home'), ...options.env } as Record<string, string>;
    this.started.push({ argv, env: options.env ?? {} });
    const started = Date.now();
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: options.cwd ? this.path(options.cwd) : this.workspace,
      env,
      detached: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (options.stdin !== undefined) child.stdin?.end(options.stdin);
    const pid = child.pid;
    if (pid !== undefined) this.groups.add(pid);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const killGroup = () => {
      if (pid === undefined) return;
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const done = new Promise<ExecResult>((resolve) => {
      child.on('error', (error) => {
        stderr += String(error);
      });
      child.on('close', (code) => {
        if (pid !== undefined) this.groups.delete(pid);
        killGroup();
        resolve({ exitCode: code, stdout, stderr, timedOut: false, durationMs: Date.now() - started });
      });
    });
    return {
      pid,
      output: () => ({ stdout, stderr }),
      wait: () => done,
      kill: async () => {
        killGroup();
        await done;
      },
    };
  }

  async readFile(path: string): Promise<Uint8Array> {
    return readFile(this.path(path));
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    await mkdir(dirname(this.path(path)), { recursive: true });
    await writeFile(this.path(path), data);
  }

  async remove(path: string): Promise<void> {
    await rm(this.path(path), { recursive: true, force: true });
  }

  /** Processes still running that this sandbox started. */
  get running(): number {
    return this.groups.size;
  }

  async close(): Promise<void> {
    for (const pid of this.groups) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    await rm(this.root, { recursive: true, force: true });
  }

  list(): never {
    throw new Error('HostSandbox.list is not used by harness tests');
  }
  pull(): never {
    throw new Error('HostSandbox.pull is not used by harness tests');
  }
  push(): never {
    throw new Error('HostSandbox.push is not used by harness tests');
  }
  snapshot(): never {
    throw new Error('HostSandbox.snapshot is not used by harness tests');
  }
  restore(): never {
    throw new Error('HostSandbox.restore is not used by harness tests');
  }
  expose(): never {
    throw new Error('HostSandbox.expose is not used by harness tests');
  }
}
