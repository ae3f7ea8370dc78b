import {
  ClassifiedError,
  type Environment,
  type ExecOptions,
  type ExecResult,
  type FileEntry,
  FileTooLargeError,
  type JudgeArea,
  type PullOptions,
  type ReadFileOptions,
  readDirectoryFiles,
  type Sandbox,
  type SandboxProcess,
  type SandboxSpec,
  type SnapshotRef,
  type SnapshotStore,
  snapshotWorkspace,
  type WorkspaceFile,
} from '@longhaul/core';
import { FakeSnapshotStore } from './snapshot-store.js';

export type FakeExec = (
  argv: string[],
  options: ExecOptions,
  sandbox: FakeSandbox,
) => Partial<ExecResult> | Promise<Partial<ExecResult>>;

export interface FakeEnvironmentOptions {
  /** Where snapshots go (the run's store in runner tests); default: in memory. */
  snapshots?: SnapshotStore;
  /** Answers `exec` and `start`; default: exit 0 with no output. */
  exec?: FakeExec;
  /** Makes `open` reject with this error (or the error the function returns for a spec). */
  failOpen?: Error | ((spec: SandboxSpec) => Error | undefined);
  /** Makes `open` never return (an environment that is stuck). */
  hangOpen?: boolean;
  /** Makes `snapshot` reject with this error. */
  failSnapshot?: Error;
  /** What `describe()` returns (lock.json). */
  describe?: Record<string, unknown>;
  /** Makes `sweep` reject with this error. */
  failSweep?: Error;
  /** What `reclaim()` reports as removed. */
  reclaimed?: string[];
  /** Files larger than this are left out of pulls and snapshots (the environments' `maxFileSize`). */
  maxFileBytes?: number;
}

const workspace = '/workspace';

/**
 * The judge area of a fake sandbox, in memory: files by relative path, the paths `share` opened,
 * and `confine` giving back the argv unchanged (the fake runs nothing), so a test's `exec` script
 * sees the program under test as the scorer named it.
 */
export class FakeJudgeArea implements JudgeArea {
  readonly path = '/judge';
  readonly guarded = false;
  readonly files = new Map<string, { data: Uint8Array; mode: number }>();
  readonly shared = new Set<string>();

  private relative(path: string): string {
    const parts = path.split('/').filter((part) => part !== '' && part !== '.');
    if (path.startsWith('/') || parts.length === 0 || parts.includes('..'))
      throw new ClassifiedError('sandbox', `${path} is not a path inside the judge area`);
    return parts.join('/');
  }

  /** The area as path → text, for assertions. */
  text(): Record<string, string> {
    const decoder = new TextDecoder();
    return Object.fromEntries(
      [...this.files].sort().map(([path, file]) => [path, decoder.decode(file.data)]),
    );
  }

  async writeFile(path: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data);
    this.files.set(this.relative(path), { data: bytes, mode: options.mode ?? 0o644 });
  }

  async readFile(path: string): Promise<Uint8Array> {
    const file = this.files.get(this.relative(path));
    if (!file) throw Object.assign(new Error(`no such file in the judge area: ${path}`), { code: 'ENOENT' });
    return new Uint8Array(file.data);
  }

  async share(path: string): Promise<void> {
    this.shared.add(this.relative(path));
  }

  confine(argv: readonly string[]): string[] {
    return [...argv];
  }
}

/**
 * An environment whose sandboxes keep their workspace in memory. It honours the Sandbox
 * contract (relative paths, snapshot/restore through a SnapshotStore, `sandbox` errors after
 * close), and records every sandbox it opened so tests can check who opened and closed what.
 */
export class FakeEnvironment implements Environment {
  readonly snapshots: SnapshotStore;
  readonly opened: FakeSandbox[] = [];
  /** The options of every `reclaim` call, in order. */
  readonly reclaims: { runId?: string }[] = [];

  constructor(readonly options: FakeEnvironmentOptions = {}) {
    this.snapshots = options.snapshots ?? new FakeSnapshotStore();
  }

  async open(spec: SandboxSpec): Promise<FakeSandbox> {
    const failure =
      typeof this.options.failOpen === 'function' ? this.options.failOpen(spec) : this.options.failOpen;
    if (failure) throw failure;
    if (this.options.hangOpen) await new Promise(() => {});
    const sandbox = new FakeSandbox(`fake-${this.opened.length + 1}`, spec, this);
    if (spec.from) await sandbox.push(await this.snapshots.get(spec.from));
    else if (spec.task.seed) await sandbox.push(await readDirectoryFiles(spec.task.seed));
    this.opened.push(sandbox);
    return sandbox;
  }

  async describe(): Promise<Record<string, unknown>> {
    return this.options.describe ?? { environment: 'fake' };
  }

  async reclaim(options: { runId?: string }): Promise<{ removed: string[] }> {
    this.reclaims.push(options);
    return { removed: this.options.reclaimed ?? [] };
  }
}

export class FakeSandbox implements Sandbox {
  readonly workspace = workspace;
  readonly hostAddress = '127.0.0.1';
  readonly files = new Map<string, { data: Uint8Array; mode: number }>();
  readonly execs: string[][] = [];
  /** Never part of `files`, pulls or snapshots. */
  readonly judge = new FakeJudgeArea();
  /** How many times `sweep` was called. */
  sweeps = 0;
  closed = false;

  constructor(
    readonly id: string,
    readonly spec: SandboxSpec,
    private readonly environment: FakeEnvironment,
  ) {}

  /** The workspace as path → text, for assertions. */
  text(): Record<string, string> {
    const decoder = new TextDecoder();
    return Object.fromEntries(
      [...this.files].sort().map(([path, file]) => [path, decoder.decode(file.data)]),
    );
  }

  async exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    this.check();
    this.execs.push(argv);
    const started = Date.now();
    const result = (await this.environment.options.exec?.(argv, options, this)) ?? {};
    return {
      exitCode: 0,
      stdout: '',
      stderr: '',
      timedOut: false,
      ...result,
      durationMs: Date.now() - started,
    };
  }

  async start(
    argv: string[],
    options: Omit<ExecOptions, 'timeoutMs' | 'stdin'> = {},
  ): Promise<SandboxProcess> {
    const done = this.exec(argv, options);
    let output = { stdout: '', stderr: '' };
    void done.then((result) => {
      output = { stdout: result.stdout, stderr: result.stderr };
    });
    return { pid: undefined, output: () => output, wait: () => done, kill: async () => {} };
  }

  async readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    this.check();
    const file = this.files.get(this.relative(path));
    if (!file) throw new ClassifiedError('sandbox', `no such file in the workspace: ${path}`);
    if (options.maxBytes !== undefined && file.data.length > options.maxBytes)
      throw new FileTooLargeError(path, file.data.length, options.maxBytes);
    return new Uint8Array(file.data);
  }

  async writeFile(path: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
    this.check();
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data);
    const key = this.relative(path);
    this.files.set(key, { data: bytes, mode: options.mode ?? this.files.get(key)?.mode ?? 0o644 });
  }

  async remove(path: string): Promise<void> {
    this.check();
    const key = this.relative(path);
    for (const name of [...this.files.keys()]) {
      if (name === key || name.startsWith(`${key}/`)) this.files.delete(name);
    }
  }

  async list(path = '.', options: { recursive?: boolean } = {}): Promise<FileEntry[]> {
    this.check();
    const base = this.relative(path);
    const prefix = base === '' ? '' : `${base}/`;
    const entries = new Map<string, FileEntry>();
    for (const [name, file] of this.files) {
      if (!name.startsWith(prefix)) continue;
      const parts = name.slice(prefix.length).split('/');
      const depth = options.recursive ? parts.length : 1;
      for (let i = 1; i <= depth; i++) {
        const sub = prefix + parts.slice(0, i).join('/');
        const isFile = i === parts.length;
        entries.set(sub, {
          path: sub,
          type: isFile ? 'file' : 'dir',
          size: isFile ? file.data.length : 0,
          mode: isFile ? file.mode : 0o755,
        });
      }
    }
    return [...entries.values()].sort((a, b) => a.path.localeCompare(b.path));
  }

  async pull(options: PullOptions = {}): Promise<WorkspaceFile[]> {
    this.check();
    const limit = Math.min(
      this.environment.options.maxFileBytes ?? Number.POSITIVE_INFINITY,
      options.maxFileBytes ?? Number.POSITIVE_INFINITY,
    );
    // Each path is asked once, folders before what they hold, as the environments do.
    const answers = new Map<string, boolean>();
    const wanted = (path: string, type: FileEntry['type'], size: number): boolean => {
      if (!options.only) return true;
      const known = answers.get(path);
      if (known !== undefined) return known;
      const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
      const answer = (parent === '' || wanted(parent, 'dir', 0)) && options.only({ path, type, size });
      answers.set(path, answer);
      return answer;
    };
    const files: WorkspaceFile[] = [];
    for (const [path, file] of [...this.files].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (!wanted(path, 'file', file.data.length)) continue;
      if (file.data.length > limit) options.onSkipped?.({ path, size: file.data.length });
      else files.push({ path, mode: file.mode, data: new Uint8Array(file.data) });
    }
    return files;
  }

  async push(files: WorkspaceFile[]): Promise<void> {
    this.check();
    this.files.clear();
    for (const file of files) this.files.set(file.path, { data: new Uint8Array(file.data), mode: file.mode });
  }

  async snapshot(): Promise<SnapshotRef> {
    this.check();
    if (this.environment.options.failSnapshot) throw this.environment.options.failSnapshot;
    return snapshotWorkspace(this.environment.snapshots, (options) => this.pull(options));
  }

  async restore(ref: SnapshotRef): Promise<void> {
    this.check();
    await this.push(await this.environment.snapshots.get(ref));
  }

  async expose(port: number): Promise<string> {
    this.check();
    return `http://127.0.0.1:${port}`;
  }

  async sweep(): Promise<void> {
    this.check();
    this.sweeps++;
    if (this.environment.options.failSweep) throw this.environment.options.failSweep;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private check(): void {
    if (this.closed) throw new ClassifiedError('sandbox', `sandbox ${this.id} is closed`);
  }

  private relative(path: string): string {
    let rel = path;
    if (rel.startsWith('/')) {
      if (rel !== workspace && !rel.startsWith(`${workspace}/`)) {
        throw new ClassifiedError('sandbox', `path outside the workspace: ${path}`);
      }
      rel = rel.slice(workspace.length);
    }
    const parts: string[] = [];
    for (const part of rel.split('/')) {
      if (part === '' || part === '.') continue;
      if (part === '..') {
        if (parts.length === 0) throw new ClassifiedError('sandbox', `path outside the workspace: ${path}`);
        parts.pop();
      } else parts.push(part);
    }
    return parts.join('/');
  }
}
