import {
  ClassifiedError,
  type DiskWatch,
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
import { folderDiskWatch } from './disk-watch.js';
import type { LocalOptions } from './options.js';
import { type GroupExit, ProcessGroup } from './process-group.js';
import { removeSandboxFolder } from './sandbox-folder.js';
import type { LimitCounters } from './sandbox-limits.js';
import { unreachableFolder } from './sandbox-user.js';

const defaultMaxOutputBytes = 10 * 1024 * 1024;

/** A program that cannot start gets the code a shell would give: 126 not executable, 127 not found. */
function shellCode(spawnCode: string | undefined): number {
  return spawnCode === 'EACCES' ? 126 : 127;
}

/** A command's own record: its argv, the limit counters when it started, and whether the disk limit stopped it. */
interface Call {
  argv: string[];
  before: LimitCounters | undefined;
  diskStopped: boolean;
}

/** Ended by the kernel for a file past RLIMIT_FSIZE (the disk limit), directly or as a shell reports it. */
function fileTooLarge(exit: GroupExit): boolean {
  return exit.signal === 'SIGXFSZ' || exit.exitCode === 128 + 25;
}

/** Ended by SIGKILL, directly or as a shell or bwrap reports it. */
function killed(exit: GroupExit): boolean {
  return exit.signal === 'SIGKILL' || exit.exitCode === 128 + 9;
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
  private callCount = 0;
  /** Commands of `exec` still running, by call number. */
  private readonly execs = new Map<ProcessGroup, number>();
  /** Processes of `start` still running. */
  private readonly started = new Set<ProcessGroup>();
  private readonly calls = new WeakMap<ProcessGroup, Call>();
  private readonly disk: DiskWatch;

  constructor(
    readonly id: string,
    private readonly files: FolderWorkspace,
    private readonly dirs: LocalSandboxDirs,
    private readonly options: LocalOptions,
    private readonly store: SnapshotStore | undefined,
    private readonly containment: Containment,
    /** `judge/` beside the workspace; see LocalEnvironment.open for who reaches it. */
    readonly judge: JudgeArea,
  ) {
    const { user, settings } = containment.controls;
    this.disk = folderDiskWatch(
      [files.root, dirs.home, dirs.tmp],
      settings.diskBytes,
      user,
      () => containment.controls.processes(),
      () => this.stopForDisk(),
    );
  }

  /**
   * The sandbox's files went past its disk limit and still grow: every process of the sandbox is
   * stopped (those of `exec` and `start`, and what they left running), and each says so.
   */
  private async stopForDisk(): Promise<void> {
    const groups = [...this.started, ...this.execs.keys()];
    for (const group of groups) {
      const call = this.calls.get(group);
      if (call) call.diskStopped = true;
    }
    await Promise.all([...groups.map((group) => group.stop()), this.containment.sweep(new Set())]);
  }

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
    const call = ++this.callCount;
    const command = await this.containment.command(argv, this.environment(options.env), {
      call,
      cwd,
      user: options.user ?? 'agent',
    });
    this.alive();
    const before = await this.containment.controls.counters();
    this.disk.begin();
    let group: ProcessGroup;
    try {
      group = await ProcessGroup.start(command.argv, {
        cwd,
        env: command.env,
        stdin: options.stdin,
        maxOutputBytes: options.maxOutputBytes ?? defaultMaxOutputBytes,
        killGraceMs: this.options.killGraceMs,
        afterExit: () => this.containment.afterCall(call),
      });
    } catch (error) {
      this.disk.end();
      throw error;
    }
    this.calls.set(group, { argv, before, diskStopped: false });
    if (background) this.started.add(group);
    else this.execs.set(group, call);
    void group.done
      .finally(() => {
        this.started.delete(group);
        this.execs.delete(group);
        this.disk.end();
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
    const call = this.calls.get(group);
    const stderr = group.stderr.text();
    const failed =
      exit.spawnError === undefined ? this.containment.startFailure(exit.exitCode, stderr) : undefined;
    const exitCode = exit.spawnError === undefined ? (failed ?? exit.exitCode) : shellCode(exit.spawnCode);
    const result: ExecResult = {
      exitCode,
      stdout: group.stdout.text(),
      stderr: exit.spawnError === undefined ? stderr : `${stderr}${exit.spawnError}\n`,
      timedOut: timedOut(),
      truncated: group.stdout.truncated || group.stderr.truncated,
      durationMs: Date.now() - started,
    };
    const after = call?.before === undefined ? undefined : await this.containment.controls.counters();
    const { settings } = this.containment.controls;
    if (after && call?.before) {
      if (killed(exit) && !result.timedOut && after.oomKills > call.before.oomKills) {
        result.oomKilled = true;
        result.stderr += `longhaul: killed for memory: the sandbox's processes together reached its limit of ${settings.memoryBytes} bytes\n`;
      }
      if (after.pidsMax > call.before.pidsMax) result.pidsLimitHit = true;
    }
    if (call?.diskStopped || fileTooLarge(exit)) {
      result.diskLimitHit = true;
      result.stderr += call?.diskStopped
        ? `longhaul: stopped: the sandbox's files went past its disk limit of ${settings.diskBytes} bytes; remove files to go on\n`
        : `longhaul: a file reached the sandbox's disk limit of ${settings.diskBytes} bytes\n`;
    }
    if (exitCode !== 0 && call) result.stderr += this.unreachableHint(call.argv, result.stderr);
    return result;
  }

  /** Why the sandbox's user could not run the program, when a folder on its way is closed to it. */
  private unreachableHint(argv: string[], stderr: string): string {
    const user = this.containment.controls.user;
    const program = argv[0] ?? '';
    if (!user || !program.startsWith('/') || !/Permission denied/.test(stderr)) return '';
    const blocked = unreachableFolder(program);
    return blocked === undefined
      ? ''
      : `longhaul: the sandbox's commands run as uid ${user.uid}, which cannot reach ${program}: ${blocked} is closed to other users\n`;
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
    this.disk.close();
    await Promise.all([...this.started, ...this.execs.keys()].map((group) => group.stop()));
    await this.containment.sweep(new Set());
    await this.containment.close();
    if (!this.options.keep) await removeSandboxFolder(this.dirs.root);
    await this.containment.controls.release();
  }
}
