import type { EnvironmentNeeds, Task } from './task.js';

/** A content-addressed snapshot of a workspace, stored in the run (see SnapshotStore). */
export type SnapshotRef = string;

/** How `Sandbox.exec` runs a command. Every field is optional. */
export interface ExecOptions {
  /** Relative to the workspace unless absolute (and then inside it). Default: the workspace. */
  cwd?: string;
  /** Variables for the command, on top of the sandbox's own (PATH, HOME); the host's never reach it. */
  env?: Record<string, string>;
  /** Written to the command's standard input, which is then closed. Default: empty. */
  stdin?: string | Uint8Array;
  /** Milliseconds before the command and everything it started are killed (`timedOut` is then set). */
  timeoutMs?: number;
  /** `agent` (the unprivileged user agents run as) or `root`. Default: agent. */
  user?: 'agent' | 'root';
  /** Aborting it kills the command and everything it started; `exec` then resolves promptly. */
  signal?: AbortSignal;
  /** Cap on captured stdout/stderr bytes each; the rest is dropped and `truncated` set. */
  maxOutputBytes?: number;
}

/** How a command ended. A command that fails is a result with its exit code, never a rejection. */
export interface ExecResult {
  /** The command's exit code (non-zero for a program that does not exist); null when it gave none. */
  exitCode: number | null;
  /** Standard output, decoded as UTF-8, up to `maxOutputBytes`. */
  stdout: string;
  stderr: string;
  /** The command was killed because it ran past `timeoutMs`. */
  timedOut: boolean;
  /** The kernel of the sandbox killed it for memory. */
  oomKilled?: boolean;
  /** A process of the sandbox could not start while it ran: the sandbox was at its process limit. */
  pidsLimitHit?: boolean;
  /** It was stopped because the sandbox went past its disk limit (its files stay until removed). */
  diskLimitHit?: boolean;
  /** Output went past `maxOutputBytes` and was cut there. */
  truncated?: boolean;
  /** Wall-clock milliseconds the command ran. */
  durationMs: number;
}

/** A long-running process in a sandbox (a solution's server, a background terminal command). */
export interface SandboxProcess {
  readonly pid: number | undefined;
  /** Output so far. */
  output(): { stdout: string; stderr: string };
  wait(): Promise<ExecResult>;
  kill(): Promise<void>;
}

/** One entry of `Sandbox.list`. */
export interface FileEntry {
  /** Path relative to the workspace, with `/` separators. */
  path: string;
  type: 'file' | 'dir' | 'symlink';
  /** Bytes. */
  size: number;
  /** The mode as stat gives it; `mode & 0o777` are the permissions (0o755 for a script). */
  mode: number;
}

/** A file of a workspace as snapshots carry it. */
export interface WorkspaceFile {
  path: string;
  mode: number;
  data: Uint8Array;
}

/**
 * An entry a pull left out, recorded in the snapshot (path, size, reason) instead of its bytes.
 * Without a reason: a regular file larger than the environment's `maxFileSize`, never read into
 * memory. Otherwise `reason` says why: `link` a link leading out of the workspace (a snapshot holds
 * no host path), `type` a FIFO, socket or device, `unreadable`, `name` a name that is not UTF-8,
 * `depth` a folder nested deeper than a walk goes, `count` the folder where a walk stopped after
 * its entry limit.
 */
export interface SkippedFile {
  path: string;
  /** Bytes. */
  size: number;
  reason?: 'size' | 'link' | 'type' | 'unreadable' | 'name' | 'depth' | 'count';
}

/** Options of `Sandbox.pull`. */
export interface PullOptions {
  /** Told of every file left out for its size (see SkippedFile). */
  onSkipped?: (file: SkippedFile) => void;
  /**
   * Which entries to take: asked of each file, link and folder (with its workspace-relative path)
   * before it is read or entered; false leaves a file out unread, a folder unentered, and neither
   * is reported to `onSkipped`. For callers that want part of a workspace within a budget (a
   * search over source files), not for snapshots.
   */
  only?: (entry: Pick<FileEntry, 'path' | 'type' | 'size'>) => boolean;
  /** Files larger than this are left out unread, as over `maxFileSize` (the smaller of the two counts). */
  maxFileBytes?: number;
}

/** Options of `Sandbox.readFile`. */
export interface ReadFileOptions {
  /** A larger file is refused unread, with a FileTooLargeError giving its size. */
  maxBytes?: number;
}

/**
 * What `readFile` rejects with when the file is larger than its `maxBytes`: nothing was read. Told
 * apart by `isFileTooLarge`, which also knows one thrown by another copy of the kernel.
 */
export class FileTooLargeError extends Error {
  readonly code = 'EFBIG';

  constructor(
    readonly path: string,
    /** Bytes the file has (at least). */
    readonly size: number,
    readonly maxBytes: number,
  ) {
    super(`"${path}" is ${size} bytes, over the ${maxBytes} bytes asked for; it was not read`);
    this.name = 'FileTooLargeError';
  }
}

/** Whether `error` is a FileTooLargeError, of this copy of the kernel or another. */
export function isFileTooLarge(error: unknown): error is FileTooLargeError {
  const candidate = error as Partial<FileTooLargeError> | null;
  return candidate?.code === 'EFBIG' && typeof candidate.size === 'number';
}

/**
 * The judge's own folder in a sandbox (`Sandbox.judge`): where a scorer puts hidden tests, their
 * configuration and helpers, and where its test runner writes its results. It is outside the
 * workspace, so `pull`, `push`, `snapshot`, `restore` and the file methods of the sandbox never
 * cover it, and it starts empty in every sandbox.
 *
 * Two kinds of commands meet there. The judge's own (the test runner) run with `user: 'root'`:
 * they read and write the area. The program under test runs as the agent: directly (`user:
 * 'agent'`), or started by a judge command through `confine(argv)`, which is how a test runner
 * launches it. Where `guarded`, the program under test can neither write nor replace nor read
 * anything in the area but what `share` opened to it (and that read-only), so it cannot forge the
 * judge's results, change its tests or read the expected answers.
 *
 * ```ts
 * await sandbox.judge.writeFile('tests/test_cli.py', hidden);
 * const entrypoint = sandbox.judge.confine(['python3', 'main.py']);
 * await sandbox.exec(['python3', '-m', 'pytest', `${sandbox.judge.path}/tests`, ...], { user: 'root' });
 * const results = await sandbox.judge.readFile('results.json');
 * ```
 */
export interface JudgeArea {
  /** Absolute path of the area as commands in the sandbox see it; never inside the workspace. */
  readonly path: string;
  /**
   * Whether the environment keeps the program under test out of the area as described above.
   * False only where commands run without isolation (the local environment's `isolation: none`):
   * there the area is still out of the workspace and its snapshots, but a program that looks for
   * it can read and write it.
   */
  readonly guarded: boolean;
  /** Writes a file (a path relative to the area), making its folders; `mode` defaults to 0o644. */
  writeFile(path: string, data: string | Uint8Array, options?: { mode?: number }): Promise<void>;
  /** Reads a file of the area (relative path), e.g. results a judge command wrote. */
  readFile(path: string): Promise<Uint8Array>;
  /**
   * Lets the program under test read a folder or file of the area (relative path), never write
   * it: data a test hands it by path (SlopCodeBench's static assets). Applies to what the area
   * holds at that path when `share` is called.
   */
  share(path: string): Promise<void>;
  /**
   * The argv that runs `argv` as the program under test from inside a judge command: as the
   * agent (where the sandbox has a single user id, as that id stripped of every privilege), with
   * the agent's HOME (unless the judge set another), umask 022, the same workspace,
   * TMPDIR, environment and network, its exit code and standard streams passed through. Where
   * `guarded`, it cannot signal or inspect the judge's processes either. No word of the argv
   * added holds a blank, so a test that splits its entrypoint at blanks gets it whole. It may
   * name a helper in the area: call it once the area holds the suite.
   */
  confine(argv: readonly string[]): string[];
}

/**
 * Where the agent works. Paths given to file methods are relative to the workspace (absolute
 * paths are refused unless they are inside it). Implementations must make every method safe to
 * call after `close()` (they reject with a ClassifiedError of class `sandbox`).
 */
export interface Sandbox {
  /** Names the sandbox in logs and errors (a folder, a container id). */
  readonly id: string;
  /** Absolute path of the workspace as seen by processes inside the sandbox. */
  readonly workspace: string;
  /**
   * Host-side details harnesses may need, e.g. the address at which the sandbox reaches a server
   * on the host (the model gateway).
   */
  readonly hostAddress: string;
  /**
   * Runs `argv` (a program and its arguments, no shell: use `['sh', '-c', script]` for one) and
   * waits for it. Nothing it starts outlives the call.
   *
   * ```ts
   * const { exitCode, stdout } = await sandbox.exec(['python3', 'main.py', 'summary'], { timeoutMs: 10_000 });
   * ```
   */
  exec(argv: string[], options?: ExecOptions): Promise<ExecResult>;
  /** Starts `argv` in the background (a server, a watcher) and returns at once; see SandboxProcess. */
  start(argv: string[], options?: Omit<ExecOptions, 'timeoutMs' | 'stdin'>): Promise<SandboxProcess>;
  /** A file's bytes; with `maxBytes`, a larger file is refused unread (FileTooLargeError). */
  readFile(path: string, options?: ReadFileOptions): Promise<Uint8Array>;
  /** Writes a file, making its folders; `mode` defaults to the environment's (usually 0o644). */
  writeFile(path: string, data: string | Uint8Array, options?: { mode?: number }): Promise<void>;
  /** Removes a file or a folder with everything in it; a missing path is no error. */
  remove(path: string): Promise<void>;
  /** The entries of a folder of the workspace (default: its root), every level below with `recursive`. */
  list(path?: string, options?: { recursive?: boolean }): Promise<FileEntry[]>;
  /**
   * The files of the workspace (minus the environment's excludes) in memory: for tools and
   * memories that read part of it (`only` narrows it). Regular files over the environment's
   * `maxFileSize` (or `maxFileBytes`) are left out without being read, and reported to
   * `onSkipped`. A whole workspace goes through `snapshot` and `restore`, which stream.
   */
  pull(options?: PullOptions): Promise<WorkspaceFile[]>;
  /** Makes the workspace hold exactly these files (held in memory: for a few small ones). */
  push(files: WorkspaceFile[]): Promise<void>;
  /**
   * Stores the workspace, as `pull` would give it with the files it skipped, in the snapshot
   * store, streaming: each file's bytes go from the workspace to the store through a buffer of
   * constant size (`SnapshotStore.writer`), so memory does not grow with the workspace.
   */
  snapshot(): Promise<SnapshotRef>;
  /**
   * Makes the workspace hold exactly the snapshot's files, streaming them from the store
   * (`SnapshotStore.entries` and `blob`); files already equal are left alone.
   */
  restore(ref: SnapshotRef): Promise<void>;
  /**
   * The judge's folder (see JudgeArea). Every environment that ships has one, and the environment
   * conformance suite checks it; scorers that run hidden tests need it.
   */
  readonly judge?: JudgeArea;
  /** A URL on the host that reaches `port` inside the sandbox. */
  expose(port: number): Promise<string>;
  /**
   * Ends every process of the sandbox that is not part of a call still running (the sandbox's
   * own init or keeper process excepted), background processes from `start()` included. The
   * kernel calls it at the end of every step, before the step's snapshot, so nothing an agent
   * left running changes the snapshot or reaches the next step. The sandbox stays usable.
   * `close()` ends everything anyway.
   */
  sweep?(): Promise<void>;
  close(): Promise<void>;
}

/** What the kernel asks an environment to open: the sandbox of an agent or of a scorer, for one task. */
export interface SandboxSpec {
  runId: string;
  trialId: string;
  /** Why this sandbox exists: the agent's, or a scorer's own. Environments label with it. */
  purpose: 'agent' | 'scorer';
  task: Pick<Task, 'id' | 'root' | 'seed'>;
  needs: EnvironmentNeeds;
  /** Start from this snapshot instead of the task's seed. */
  from?: SnapshotRef;
}

/** A file of a snapshot as its manifest lists it, without its bytes. */
export interface SnapshotEntry {
  path: string;
  /** As WorkspaceFile's: a symlink has the type bits 0o120000 and its target as bytes. */
  mode: number;
  /** sha256 of the bytes, hex: equal hashes, equal files. */
  blob: string;
}

/** The bytes of one stored file (a blob), read when asked. */
export interface SnapshotBlob {
  size(): Promise<number>;
  /** All of it in memory: for small files (a symlink's target, a source file). */
  bytes(): Promise<Uint8Array>;
  /** Its bytes in chunks of bounded size. */
  stream(): AsyncIterable<Uint8Array>;
  /**
   * Where the blob is a file on the runner's host, when it is one (never to be written): a restore
   * then has the kernel copy it (one call per file) instead of reading it through the runner.
   */
  file?: string;
}

/**
 * A snapshot being stored file by file (`SnapshotStore.writer`): what `Sandbox.snapshot` uses so
 * that no file, and no workspace, is ever whole in memory.
 */
export interface SnapshotWriter {
  /**
   * Stores one file. `data` is its bytes, or chunks read as they come (a file's stream): they are
   * hashed and written as they pass, and the stream is read once. Gives the blob's hash when the
   * store names blobs by it (then `addStored` can name the same bytes again without them).
   */
  add(
    file: { path: string; mode: number },
    data: Uint8Array | AsyncIterable<Uint8Array>,
    // biome-ignore lint/suspicious/noConfusingVoidType: a store that names no blobs gives nothing
  ): Promise<string | void>;
  /**
   * Records a file whose bytes are the blob `blob` already stored (a file unchanged since the last
   * snapshot, not read again); false when the store does not hold that blob, and nothing is recorded.
   */
  addStored?(file: { path: string; mode: number }, blob: string): Promise<boolean>;
  /** Records a file the snapshot leaves out (see SkippedFile). */
  skip(file: SkippedFile): void;
  /** Stores the manifest once every `add` has resolved; gives the ref, as `put` would for the same files. */
  finish(): Promise<SnapshotRef>;
}

/** Content-addressed storage of workspace snapshots in the run directory. */
export interface SnapshotStore {
  /**
   * Stores files held in memory; `skipped`: the files the pull left out, recorded in the snapshot,
   * not stored. A whole workspace goes through `writer`.
   */
  put(files: WorkspaceFile[], skipped?: readonly SkippedFile[]): Promise<SnapshotRef>;
  /** Stores a snapshot file by file, streaming (see SnapshotWriter). */
  writer(): SnapshotWriter;
  /**
   * The snapshot's files in memory, sorted by path; with `include`, only those whose path it
   * accepts are read (a scorer that wants the sources of a large workspace holds only those).
   */
  get(ref: SnapshotRef, options?: { include?: (path: string) => boolean }): Promise<WorkspaceFile[]>;
  /** The snapshot's files without their bytes, sorted by path. */
  entries(ref: SnapshotRef): Promise<SnapshotEntry[]>;
  /**
   * The snapshot's files without their bytes, sorted by path, one at a time: what walks a whole
   * snapshot (a diff, a restore, a comparison of two) uses, so its memory does not grow with the
   * workspace.
   */
  scan(ref: SnapshotRef): AsyncIterable<SnapshotEntry>;
  /** The bytes of a file of `entries`, by its blob hash. */
  blob(hash: string): SnapshotBlob;
  /** The files a snapshot left out for their size, sorted by path (usually none). */
  skipped(ref: SnapshotRef): Promise<SkippedFile[]>;
  /** The files a snapshot left out, sorted by path, one at a time (see `scan`). */
  scanSkipped(ref: SnapshotRef): AsyncIterable<SkippedFile>;
  has(ref: SnapshotRef): Promise<boolean>;
}

/** Opens sandboxes: the contract of the `environment` kind. */
export interface Environment {
  open(spec: SandboxSpec): Promise<Sandbox>;
  /** What goes into lock.json for this environment (image digests, tool versions). */
  describe?(): Promise<Record<string, unknown>>;
  /**
   * What would keep `open` from making a sandbox for these tasks (for docker: an image neither on
   * the host nor buildable), one line each; empty when nothing would. Builds and starts nothing:
   * `validate` and the start of a run call it so a missing image is found before the first trial.
   */
  check?(tasks: Pick<Task, 'id' | 'root' | 'environment'>[]): Promise<string[]>;
  /**
   * Removes what runs whose owner process is dead left behind (containers, networks, volumes and
   * firewall chains for docker; sandbox folders for local); with `runId`, only that run's. Objects
   * of live processes are left alone. `longhaul resume` calls it with the run's id before it
   * continues, `longhaul prune` without. Returns a name for each thing removed.
   */
  reclaim?(options: { runId?: string }): Promise<{ removed: string[] }>;
}
