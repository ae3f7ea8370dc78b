import {
  ClassifiedError,
  type ExecOptions,
  type ExecResult,
  type FileEntry,
  type FolderWorkspace,
  type JudgeArea,
  type PullOptions,
  type ReadFileOptions,
  type Sandbox,
  type SandboxProcess,
  type SnapshotRef,
  type SnapshotStore,
  type WorkspaceFile,
} from '@longhaul/core';
import type { Containment } from './containment.js';
import type { LocalOptions } from './options.js';
import { ProcessGroup } from './process-group.js';
import { removeSandboxFolder } from './sandbox-folder.js';

const defaultMaxOutputBytes = 10 * 1024 * 1024;

/** A program that cannot start gets the code a shell would give: 126 not executable, 127 not found. */
function shellCode(spawnCode: string | undefined): number {
  return spawnCode === 'EACCES' ? 126 : 127;
}

export interface LocalSandboxDirs {
  /** Directory holding everything of this sandbox; removed on close. */
  root: string;
  home: string;
  tmp: string;
  /** TMPDIR as commands see it: `tmp`, or /tmp where that is where `tmp` is mounted. */
  tmpInside: string;
  /** PATH of commands (before the `env` option). */
  path: string;
}

/**
 * A sandbox that is a directory on the host. How much of the machine its commands reach is the
 * containment's business: with isolation none, all of it (they run as the runner's user,
 * `ExecOptions.user` is ignored, with the host's network); with bubblewrap, the workspace and
 * what the allow-list mounts read-only (see HardenedContainment).
 */
export class LocalSandbox implements Sandbox {
  private closed = false;
  private calls = 0;
  /** Commands of `exec` still running, by call number. */
  private readonly execs = new Map<ProcessGroup, number>();
  /** Processes of `start` still running. */
  private readonly started = new Set<ProcessGroup>();

  constructor(
    readonly id: string,
    private readonly files: FolderWorkspace,
    private readonly dirs: LocalSandboxDirs,
    private readonly options: LocalOptions,
    private readonly store: SnapshotStore | undefined,
    private readonly containment: Containment,
    /** `judge/` beside the workspace; see LocalEnvironment.open for who reaches it. */
    readonly judge: JudgeArea,
  ) {}

  /** Where commands see the workspace: its host folder, or a task's path under bubblewrap (/app). */
  get workspace(): string {
    return this.files.inside;
  }

  get hostAddress(): string {
    return this.containment.hostAddress;
  }

  /** The whole environment a command sees: PATH (the host's in plain mode), HOME, TMPDIR, locale. */
  private environment(extra: Record<string, string> | undefined): Record<string, string> {
    return {
      PATH: this.dirs.path,
      HOME: this.dirs.home,
      TMPDIR: this.dirs.tmpInside,
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      ...this.options.env,
      ...extra,
    };
  }

  private alive(): void {
    if (this.closed) throw new ClassifiedError('sandbox', `sandbox ${this.id} is closed`);
  }

  private async spawn(argv: string[], options: ExecOptions, background: boolean): Promise<ProcessGroup> {
    this.alive();
    if (argv.length === 0) throw new Error('exec needs a program: argv is empty');
    const cwd = await this.files.resolve(options.cwd ?? '.');
    const call = ++this.calls;
    const command = await this.containment.command(argv, this.environment(options.env), {
      call,
      cwd,
      user: options.user ?? 'agent',
    });
    this.alive();
    const group = await ProcessGroup.start(command.argv, {
      cwd,
      env: command.env,
      stdin: options.stdin,
      maxOutputBytes: options.maxOutputBytes ?? defaultMaxOutputBytes,
      killGraceMs: this.options.killGraceMs,
      afterExit: () => this.containment.afterCall(call),
    });
    if (background) this.started.add(group);
    else this.execs.set(group, call);
    void group.done
      .finally(() => {
        this.started.delete(group);
        this.execs.delete(group);
      })
      .catch(() => undefined);
    if (this.closed) {
      // The sandbox was closed while the command was being started.
      await group.stop();
      this.alive();
    }
    return group;
  }

  private async result(group: ProcessGroup, started: number, timedOut: () => boolean): Promise<ExecResult> {
    const exit = await group.done;
    const stderr = group.stderr.text();
    const failed =
      exit.spawnError === undefined ? this.containment.startFailure(exit.exitCode, stderr) : undefined;
    return {
      exitCode: exit.spawnError === undefined ? (failed ?? exit.exitCode) : shellCode(exit.spawnCode),
      stdout: group.stdout.text(),
      stderr: exit.spawnError === undefined ? stderr : `${stderr}${exit.spawnError}\n`,
      timedOut: timedOut(),
      truncated: group.stdout.truncated || group.stderr.truncated,
      durationMs: Date.now() - started,
    };
  }

  async exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    const started = Date.now();
    const group = await this.spawn(argv, options, false);
    let timedOut = false;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            void group.stop();
          }, options.timeoutMs);
    const onAbort = () => void group.stop();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    try {
      return await this.result(group, started, () => timedOut);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  async start(
    argv: string[],
    options: Omit<ExecOptions, 'timeoutMs' | 'stdin'> = {},
  ): Promise<SandboxProcess> {
    const started = Date.now();
    const group = await this.spawn(argv, options, true);
    options.signal?.addEventListener('abort', () => void group.stop(), { once: true });
    return {
      pid: group.pid,
      output: () => ({ stdout: group.stdout.text(), stderr: group.stderr.text() }),
      wait: () => this.result(group, started, () => false),
      kill: async () => {
        await group.stop();
        await group.done;
      },
    };
  }

  // File methods never open a path whole: see FolderWorkspace and the kernel's WorkspaceHandle.
  async readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    this.alive();
    return this.files.readFile(path, options);
  }

  async writeFile(path: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
    this.alive();
    await this.files.writeFile(path, data, options.mode);
  }

  async remove(path: string): Promise<void> {
    this.alive();
    await this.files.remove(path);
  }

  async list(path = '.', options: { recursive?: boolean } = {}): Promise<FileEntry[]> {
    this.alive();
    return this.files.list(path, options.recursive ?? false);
  }

  async pull(options: PullOptions = {}): Promise<WorkspaceFile[]> {
    this.alive();
    return this.files.pull(options);
  }

  async push(files: WorkspaceFile[]): Promise<void> {
    this.alive();
    await this.files.push(files);
  }

  private snapshots(): SnapshotStore {
    if (!this.store)
      throw new ClassifiedError('sandbox', 'no snapshot store is bound (tokens.SnapshotStore)');
    return this.store;
  }

  async snapshot(): Promise<SnapshotRef> {
    this.alive();
    return this.files.snapshot(this.snapshots());
  }

  async restore(ref: SnapshotRef): Promise<void> {
    this.alive();
    await this.files.restore(this.snapshots(), ref);
  }

  async expose(port: number): Promise<string> {
    this.alive();
    if (!Number.isInteger(port) || port < 1 || port > 65_535) {
      throw new ClassifiedError('sandbox', `cannot expose port ${port}: not a TCP port number`);
    }
    return this.containment.expose(port);
  }

  /**
   * Ends every process of the sandbox that is not part of an `exec` still running: `start`ed
   * ones, and whatever any call left behind. The kernel calls it at the end of each step.
   */
  async sweep(): Promise<void> {
    if (this.closed) return;
    await Promise.all([...this.started].map((group) => group.stop()));
    await this.containment.sweep(new Set(this.execs.values()));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.started, ...this.execs.keys()].map((group) => group.stop()));
    await this.containment.sweep(new Set());
    await this.containment.close();
    if (this.options.keep) return;
    await removeSandboxFolder(this.dirs.root, this.containment.contained);
  }
}
