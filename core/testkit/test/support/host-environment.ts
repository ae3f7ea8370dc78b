import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, chown, cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import {
  ClassifiedError,
  type Environment,
  type ExecOptions,
  type ExecResult,
  type FileEntry,
  FileTooLargeError,
  FolderJudgeArea,
  type PullOptions,
  type ReadFileOptions,
  readDirectoryFiles,
  type Sandbox,
  type SandboxProcess,
  type SandboxSpec,
  snapshotWorkspace,
  type WorkspaceFile,
} from '@longhaul/core';
import { FakeSnapshotStore } from '../../src/index.js';

/** One deliberate fault, each aimed at one check of the environment suite. */
export type EnvironmentFlaw =
  | 'ignores-seed'
  | 'runs-through-shell'
  | 'ignores-stdin'
  | 'leaks-host-env'
  | 'rejects-missing-program'
  | 'kills-leader-only'
  | 'ignores-signal'
  | 'never-truncates'
  | 'kill-does-nothing'
  | 'lists-absolute-paths'
  | 'follows-any-path'
  | 'restore-keeps-extra-files'
  | 'ignores-from'
  | 'push-drops-modes'
  | 'exposes-bare-address'
  | 'plain-error-after-close'
  | 'leaves-detached'
  | 'sweep-does-nothing'
  | 'pulls-large-files'
  | 'judge-in-workspace'
  | 'claims-guarded'
  | 'reads-whole-file'
  | 'pull-ignores-only'
  | 'hands-files-away'
  | 'snapshots-whole';

/**
 * What a HostEnvironment puts around its commands (see host-limits.ts): `prepare` readies a new
 * sandbox's folders, `wrap` gives the argv that runs a command, `watch` may kill a running one
 * (and returns its stop), `judge` adds what the frame saw to the result.
 */
export interface HostFrame {
  prepare(root: string, workspace: string, home: string): Promise<void>;
  wrap(argv: string[]): string[];
  watch?(workspace: string, kill: () => void): () => { stopped: boolean };
  judge(exit: {
    exitCode: number | null;
    signal: NodeJS.Signals | null;
    stderr: string;
    stopped: boolean;
  }): Partial<ExecResult>;
}

/** Kills, a few rounds over, every process of this user whose environment matches. */
async function killMarked(matches: (environ: string[]) => boolean): Promise<void> {
  for (let round = 0; round < 5; round++) {
    let found = 0;
    for (const name of await readdir('/proc')) {
      if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
      const environ = await readFile(`/proc/${name}/environ`, 'utf8').catch(() => '');
      if (environ === '' || !matches(environ.split('\0'))) continue;
      found++;
      try {
        process.kill(Number(name), 'SIGKILL');
      } catch {}
    }
    if (found === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The per-file limit of HostEnvironment's pulls (environments call it `maxFileSize`). */
export const hostMaxFileBytes = 64 * 1024;

/**
 * A small host-directory environment that meets the environment suite, unless told to break
 * one rule. It exists to show that each check of the suite catches the fault it is about.
 */
export class HostEnvironment implements Environment {
  /**
   * With `contains`, what a command detaches ends with it and `sweep()` ends started processes
   * (found again through variables they inherit: a scan of /proc, so only where it is checked).
   */
  constructor(
    readonly flaw?: EnvironmentFlaw,
    readonly contains = false,
    private readonly store = new FakeSnapshotStore(),
    readonly frame?: HostFrame,
  ) {}

  async open(spec: SandboxSpec): Promise<Sandbox> {
    const root = await mkdtemp(join(tmpdir(), 'longhaul-host-env-'));
    const workspace = join(root, 'w');
    await mkdir(workspace);
    await mkdir(join(root, 'home'));
    // Nothing here isolates: the judge area is guarded only where a flaw claims it is.
    const judge = await new FolderJudgeArea(
      this.flaw === 'judge-in-workspace' ? join(workspace, '.judge') : join(root, 'judge'),
      this.flaw === 'claims-guarded',
    ).create();
    const sandbox = new HostSandbox(root, workspace, this, judge);
    if (spec.from !== undefined && this.flaw !== 'ignores-from') await sandbox.restore(spec.from);
    else if (spec.task.seed && this.flaw !== 'ignores-seed')
      await cp(spec.task.seed, workspace, { recursive: true });
    await this.frame?.prepare(root, workspace, join(root, 'home'));
    return sandbox;
  }

  snapshots(): FakeSnapshotStore {
    return this.store;
  }
}

class HostSandbox implements Sandbox {
  readonly id = 'host';
  readonly hostAddress = '127.0.0.1';
  private closed = false;
  /** Every process a call starts inherits these variables: how detached ones are found again. */
  private readonly marker = `LONGHAUL_HOST_SANDBOX=${randomUUID()}`;
  private readonly running = new Set<string>();

  constructor(
    private readonly root: string,
    readonly workspace: string,
    private readonly env: HostEnvironment,
    readonly judge: FolderJudgeArea,
  ) {}

  private alive(): void {
    if (!this.closed) return;
    if (this.env.flaw === 'plain-error-after-close') throw new Error('closed');
    throw new ClassifiedError('sandbox', 'closed');
  }

  private path(path: string): string {
    const abs = resolve(this.workspace, path);
    const rel = relative(this.workspace, abs);
    if (this.env.flaw !== 'follows-any-path' && (rel.startsWith('..') || isAbsolute(rel))) {
      throw new ClassifiedError('sandbox', `outside: ${path}`);
    }
    return abs;
  }

  private run(argv: string[], options: ExecOptions, background = false) {
    const flaw = this.env.flaw;
    const call = `LONGHAUL_HOST_CALL=${randomUUID()}`;
    if (!background) this.running.add(call);
    const marks = Object.fromEntries([this.marker, call].map((m) => m.split('=') as [string, string]));
    const shaped = flaw === 'runs-through-shell' ? ['sh', '-c', argv.join(' ')] : argv;
    const [file, ...args] = this.env.frame ? this.env.frame.wrap(shaped) : shaped;
    // Commands share the host's temp folder, named so that those of a test run (a judge's
    // `${TMPDIR:-/tmp}`) use the run's own.
    const own = { PATH: process.env.PATH, HOME: join(this.root, 'home'), TMPDIR: tmpdir() };
    const child = spawn(file!, args, {
      cwd: this.path(options.cwd ?? '.'),
      env:
        flaw === 'leaks-host-env'
          ? { ...process.env, ...options.env, ...marks }
          : { ...own, ...options.env, ...marks },
      detached: true,
      stdio: [options.stdin === undefined || flaw === 'ignores-stdin' ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (options.stdin !== undefined && child.stdin) child.stdin.end(options.stdin);
    const cap = flaw === 'never-truncates' ? Number.POSITIVE_INFINITY : (options.maxOutputBytes ?? 1e7);
    const out = { stdout: '', stderr: '', truncated: false };
    for (const name of ['stdout', 'stderr'] as const) {
      child[name]!.on('data', (chunk: Buffer) => {
        const room = cap - out[name].length;
        if (chunk.length > room) out.truncated = true;
        out[name] += chunk.subarray(0, Math.max(0, room)).toString();
      });
    }
    const kill = () => {
      try {
        process.kill(flaw === 'kills-leader-only' ? child.pid! : -child.pid!, 'SIGKILL');
      } catch {}
    };
    const done = new Promise<number | null>((resolveExit, reject) => {
      child.on('error', (error) => (flaw === 'rejects-missing-program' ? reject(error) : resolveExit(127)));
      const closed = new Promise<number | null>((resolveClose) => child.on('close', resolveClose));
      child.on('exit', () => {
        this.running.delete(call);
        if (flaw !== 'kills-leader-only') kill();
        const leaves = !this.env.contains || flaw === 'leaves-detached' || flaw === 'kills-leader-only';
        const detached = leaves ? Promise.resolve() : killMarked((env) => env.includes(call));
        void detached.then(() => closed).then(resolveExit);
      });
    });
    return { child, out, kill, done };
  }

  async exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    this.alive();
    const started = Date.now();
    const { child, out, kill, done } = this.run(argv, options);
    let timedOut = false;
    const onTimeout = () => {
      timedOut = true;
      kill();
    };
    const timer = options.timeoutMs ? setTimeout(onTimeout, options.timeoutMs) : undefined;
    if (this.env.flaw !== 'ignores-signal') options.signal?.addEventListener('abort', kill);
    const stopWatch = this.env.frame?.watch?.(this.workspace, kill);
    const exitCode = await done;
    clearTimeout(timer);
    const stopped = stopWatch?.().stopped ?? false;
    const result: ExecResult = { exitCode, ...out, timedOut, durationMs: Date.now() - started };
    const signal = child.signalCode;
    return { ...result, ...this.env.frame?.judge({ exitCode, signal, stderr: out.stderr, stopped }) };
  }

  async start(argv: string[], options: ExecOptions = {}): Promise<SandboxProcess> {
    this.alive();
    const started = Date.now();
    const { child, out, kill, done } = this.run(argv, options, true);
    return {
      pid: child.pid,
      output: () => ({ stdout: out.stdout, stderr: out.stderr }),
      wait: async () => ({ exitCode: await done, ...out, timedOut: false, durationMs: Date.now() - started }),
      kill: async () => {
        if (this.env.flaw !== 'kill-does-nothing') kill();
      },
    };
  }

  async readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    this.alive();
    const { size } = await stat(this.path(path));
    if (options.maxBytes !== undefined && size > options.maxBytes && this.env.flaw !== 'reads-whole-file')
      throw new FileTooLargeError(path, size, options.maxBytes);
    return readFile(this.path(path));
  }

  async writeFile(path: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
    this.alive();
    const abs = this.path(path);
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, data);
    if (options.mode !== undefined) await chmod(abs, options.mode);
    // What the runner writes is not the agent's: another user's as root, read-only otherwise.
    if (this.env.flaw === 'hands-files-away') {
      if (process.getuid?.() === 0) await chown(abs, 65534, 65534);
      else await chmod(abs, 0o444);
    }
  }

  async remove(path: string): Promise<void> {
    this.alive();
    await rm(this.path(path), { recursive: true, force: true });
  }

  async list(path = '.', options: { recursive?: boolean } = {}): Promise<FileEntry[]> {
    this.alive();
    const dir = this.path(path);
    const names = await readdir(dir, { recursive: options.recursive ?? false });
    const entries = await Promise.all(
      names.map(async (name) => {
        const info = await stat(join(dir, name));
        const shown =
          this.env.flaw === 'lists-absolute-paths'
            ? join(dir, name)
            : relative(this.workspace, join(dir, name));
        return {
          path: shown,
          type: info.isDirectory() ? 'dir' : 'file',
          size: info.size,
          mode: info.mode,
        } as const;
      }),
    );
    return entries.sort((a, b) => a.path.localeCompare(b.path));
  }

  async pull(options: PullOptions = {}): Promise<WorkspaceFile[]> {
    this.alive();
    const limit =
      this.env.flaw === 'pulls-large-files'
        ? undefined
        : Math.min(hostMaxFileBytes, options.maxFileBytes ?? Number.POSITIVE_INFINITY);
    const only = this.env.flaw === 'pull-ignores-only' ? undefined : options.only;
    return readDirectoryFiles(this.workspace, { ...options, only, maxFileBytes: limit });
  }

  async push(files: WorkspaceFile[], keepOthers = false): Promise<void> {
    this.alive();
    if (!keepOthers) {
      for (const name of await readdir(this.workspace))
        await rm(join(this.workspace, name), { recursive: true });
    }
    for (const file of files) {
      const mode = this.env.flaw === 'push-drops-modes' ? undefined : file.mode;
      await this.writeFile(file.path, file.data, mode === undefined ? {} : { mode });
    }
  }

  async snapshot(): Promise<string> {
    this.alive();
    if (this.env.flaw === 'snapshots-whole')
      return snapshotWorkspace(this.env.snapshots(), (options) => this.pull(options));
    // Each file to the store as chunks, as an environment over a large workspace must.
    const writer = this.env.snapshots().writer();
    const files = await readDirectoryFiles(this.workspace, {
      maxFileBytes: hostMaxFileBytes,
      onSkipped: (file) => writer.skip(file),
    });
    for (const file of files)
      await writer.add(
        file,
        (async function* () {
          for (let at = 0; at < file.data.length; at += 16 * 1024)
            yield file.data.subarray(at, at + 16 * 1024);
        })(),
      );
    return writer.finish();
  }

  async restore(ref: string): Promise<void> {
    this.alive();
    const store = this.env.snapshots();
    if (this.env.flaw === 'snapshots-whole') {
      await this.push(await store.get(ref), false);
      return;
    }
    const files: WorkspaceFile[] = [];
    for (const entry of await store.entries(ref)) {
      const chunks: Uint8Array[] = [];
      for await (const chunk of store.blob(entry.blob).stream()) chunks.push(chunk);
      files.push({ path: entry.path, mode: entry.mode, data: Buffer.concat(chunks) });
    }
    await this.push(files, this.env.flaw === 'restore-keeps-extra-files');
  }

  async expose(port: number): Promise<string> {
    this.alive();
    return this.env.flaw === 'exposes-bare-address' ? `127.0.0.1:${port}` : `http://127.0.0.1:${port}`;
  }

  async sweep(): Promise<void> {
    this.alive();
    if (!this.env.contains || this.env.flaw === 'sweep-does-nothing') return;
    await killMarked((env) => env.includes(this.marker) && !env.some((v) => this.running.has(v)));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.env.contains) await killMarked((env) => env.includes(this.marker));
    await rm(this.root, { recursive: true, force: true });
  }
}
