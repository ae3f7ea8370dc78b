import { posix } from 'node:path';
import {
  ClassifiedError,
  type ExcludeMatcher,
  type ExecOptions,
  type FileEntry,
  FileTooLargeError,
  linkLeaves,
  type PullOptions,
  parseSize,
  type ReadFileOptions,
  type Sandbox,
  type SnapshotRef,
  type SnapshotStore,
  snapshotWorkspace,
  type WorkspaceFile,
} from '@longhaul/core';
import type Docker from 'dockerode';
import { agentUser, packFiles, readArchive } from './archive.js';
import type { Containment } from './containment.js';
import { DockerCommand as Command, type DockerCommand, type DockerExecResult } from './exec.js';
import { DockerJudgeArea } from './judge-area.js';
import type { DockerOptions } from './options.js';
import type { ContainerCgroup } from './proc.js';

const defaultMaxOutputBytes = 16 * 1024 * 1024;

/**
 * `PullOptions.only` asked once per path (it may count what it takes against a budget), with a
 * file or link under a folder it refused refused too: a tar stream cannot skip a folder, so the
 * folder's answer is asked when the first entry below it comes.
 */
function pullSelection(only: PullOptions['only']) {
  const answers = new Map<string, boolean>();
  const ask = (path: string, type: FileEntry['type'], size: number): boolean => {
    if (!only) return true;
    const known = answers.get(path);
    if (known !== undefined) return known;
    const parent = posix.dirname(path);
    const answer = (parent === '.' || ask(parent, 'dir', 0)) && only({ path, type, size });
    answers.set(path, answer);
    return answer;
  };
  return ask;
}

export interface SandboxParts {
  docker: Docker;
  container: Docker.Container;
  /** The container's address on the run network; how the host reaches servers in it. */
  ip: string;
  hostAddress: string;
  cgroup: ContainerCgroup;
  /** Ends what each call leaves running, and everything at a sweep. */
  containment: Containment;
  options: DockerOptions;
  store: SnapshotStore | undefined;
  excluded: ExcludeMatcher;
  /** Refreshes the host firewall before commands run (a gateway may have started listening). */
  beforeCommand: () => Promise<void>;
  /** Removes the container and its volume, and releases the network. */
  dispose: () => Promise<void>;
}

function statusCode(error: unknown): number | undefined {
  return (error as { statusCode?: number }).statusCode;
}

function notFound(path: string): Error {
  return Object.assign(new Error(`no such file or directory in the sandbox workspace: ${path}`), {
    code: 'ENOENT',
  });
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Shell-quotes one word for `sh -c`. */
function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * A container with the workspace on a volume. Commands run through `docker exec` as the agent
 * (uid 1000) unless they ask for root; files move in and out as tar archives through the Docker
 * API, so nothing here depends on tools inside the image beyond `sh`, `find` and `rm`.
 */
export class DockerSandbox implements Sandbox {
  readonly id: string;
  readonly workspace: string;
  readonly hostAddress: string;
  /** `/judge`, root's: see DockerJudgeArea. */
  readonly judge: DockerJudgeArea;
  private closing: Promise<void> | undefined;

  constructor(private readonly parts: SandboxParts) {
    this.id = parts.container.id.slice(0, 12);
    this.workspace = parts.options.workspace;
    this.hostAddress = parts.hostAddress;
    this.judge = new DockerJudgeArea(parts.container, (argv, options) => this.exec(argv, options));
  }

  private guard(what: string): void {
    if (this.closing !== undefined)
      throw new ClassifiedError('sandbox', `${what}: sandbox ${this.id} is closed`);
  }

  /** A workspace-relative path ('' for the workspace itself); refuses anything outside it. */
  private relative(path: string): string {
    const rel = posix.isAbsolute(path)
      ? posix.relative(this.workspace, posix.normalize(path))
      : posix.normalize(path);
    const clean = rel === '.' ? '' : rel.replace(/\/+$/, '');
    if (clean === '..' || clean.startsWith('../') || posix.isAbsolute(clean)) {
      throw new Error(`${path} is outside the sandbox workspace ${this.workspace}`);
    }
    return clean;
  }

  private absolute(rel: string): string {
    return rel === '' ? this.workspace : `${this.workspace}/${rel}`;
  }

  /** Turns Docker API failures into a classified fault, naming OOM when it killed the container. */
  private async fault(what: string, error: unknown): Promise<never> {
    if (error instanceof ClassifiedError) throw error;
    const state = await this.parts.container
      .inspect()
      .then((info) => info.State)
      .catch(() => undefined);
    if (state?.OOMKilled && !state.Running) {
      throw new ClassifiedError('oom', `${what}: the sandbox ${this.id} was killed for memory`, {
        cause: error,
      });
    }
    const reason = state === undefined ? 'its container is gone' : (error as Error).message;
    throw new ClassifiedError('sandbox', `${what} in sandbox ${this.id} failed: ${reason}`, { cause: error });
  }

  private async command(argv: string[], options: ExecOptions, background: boolean): Promise<DockerCommand> {
    if (argv.length === 0) throw new Error('exec needs a program: argv is empty');
    const rel = this.relative(options.cwd ?? '');
    const root = options.user === 'root';
    const env = {
      HOME: root ? '/root' : agentUser.home,
      USER: root ? 'root' : agentUser.name,
      LOGNAME: root ? 'root' : agentUser.name,
      ...this.parts.options.env,
      ...options.env,
    };
    try {
      await this.parts.beforeCommand();
      const { docker, container, cgroup, containment } = this.parts;
      const command = await Command.run(docker, container, cgroup, containment, {
        argv,
        user: root ? '0:0' : `${agentUser.uid}:${agentUser.gid}`,
        cwd: this.absolute(rel),
        env,
        stdin: options.stdin,
        maxOutputBytes: options.maxOutputBytes ?? defaultMaxOutputBytes,
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        background,
      });
      return command;
    } catch (error) {
      return this.fault(`exec ${argv[0]}`, error);
    }
  }

  async exec(argv: string[], options: ExecOptions = {}): Promise<DockerExecResult> {
    this.guard('exec');
    const startedAt = Date.now();
    try {
      const command = await this.command(argv, options, false);
      return await command.wait();
    } catch (error) {
      // Closing ends the commands that run, one still being started included: that is their
      // result, not a fault of the sandbox.
      if (this.closing !== undefined) {
        return {
          exitCode: null,
          stdout: '',
          stderr: `the sandbox ${this.id} closed before ${argv[0]} ended`,
          timedOut: false,
          durationMs: Date.now() - startedAt,
        };
      }
      return this.fault(`exec ${argv[0]}`, error);
    }
  }

  async start(
    argv: string[],
    options: Omit<ExecOptions, 'timeoutMs' | 'stdin'> = {},
  ): Promise<DockerCommand> {
    this.guard('start');
    return this.command(argv, options, true);
  }

  /** Kills every process but the container's keeper and those of running exec calls. */
  async sweep(): Promise<void> {
    this.guard('sweep');
    try {
      await this.parts.containment.sweep();
    } catch (error) {
      await this.fault('sweeping the processes', error);
    }
  }

  /** Runs a root shell script in the workspace and fails loudly if it fails. */
  private async root(script: string, what: string): Promise<void> {
    const result = await this.exec(['sh', '-c', script], { user: 'root', timeoutMs: 120_000 });
    if (result.exitCode !== 0) {
      throw new ClassifiedError(
        'sandbox',
        `${what} failed (exit ${result.exitCode}): ${result.stderr.trim()}`,
      );
    }
  }

  private async archive(
    rel: string,
    withData: (path: string, size: number) => boolean,
    maxFileBytes?: number,
  ) {
    try {
      const stream = await this.parts.container.getArchive({ path: this.absolute(rel) });
      return await readArchive(stream, rel, withData, maxFileBytes);
    } catch (error) {
      if (statusCode(error) === 404) throw notFound(rel || '.');
      return this.fault('reading the workspace', error);
    }
  }

  private async put(files: readonly WorkspaceFile[]): Promise<void> {
    try {
      await this.parts.container.putArchive(packFiles(files), { path: this.workspace });
    } catch (error) {
      await this.fault('writing the workspace', error);
    }
  }

  async readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    this.guard('readFile');
    let rel = this.relative(path);
    // Symlinks are followed (a few hops), as long as they stay in the workspace.
    for (let hop = 0; hop < 8; hop++) {
      const current = rel;
      const [entry] = await this.archive(current, (p) => p === current, options.maxBytes);
      if (entry === undefined || entry.path !== current) throw notFound(path);
      if (entry.type === 'dir') throw new Error(`${path} is a directory, not a file`);
      if (entry.type === 'file' && entry.skipped)
        throw new FileTooLargeError(path, entry.size, options.maxBytes ?? 0);
      if (entry.type === 'file') return new Uint8Array(entry.data ?? Buffer.alloc(0));
      const target = (entry.data ?? Buffer.alloc(0)).toString('utf8');
      rel = this.relative(posix.isAbsolute(target) ? target : posix.join(posix.dirname(current), target));
    }
    throw new Error(`${path}: too many levels of symbolic links`);
  }

  async writeFile(path: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
    this.guard('writeFile');
    const rel = this.relative(path);
    if (rel === '') throw new Error(`${path} is the workspace itself, not a file`);
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    await this.put([{ path: rel, mode: options.mode ?? 0o644, data: bytes }]);
  }

  async remove(path: string): Promise<void> {
    this.guard('remove');
    const rel = this.relative(path);
    if (rel === '') throw new Error('remove() refuses to delete the workspace itself');
    await this.root(`rm -rf -- ${quote(this.absolute(rel))}`, `removing ${rel}`);
  }

  async list(path = '', options: { recursive?: boolean } = {}): Promise<FileEntry[]> {
    this.guard('list');
    const rel = this.relative(path);
    const found = await this.find(rel, options.recursive ?? false);
    if (found !== undefined) return found.sort(byPath);
    // Without GNU find in the image, the archive gives the same, at the cost of the contents.
    const depth = rel === '' ? 1 : rel.split('/').length + 1;
    const entries = await this.archive(rel, () => false);
    return entries
      .filter((e) => e.path !== rel && (options.recursive || e.path.split('/').length === depth))
      .map(({ path: p, type, size, mode }) => ({ path: p, type, size, mode }))
      .sort(byPath);
  }

  /**
   * The entries below `rel` as GNU find in the container prints them: names, types, sizes and
   * modes without the contents, which an archive would send whole (a 1 GB file took the archive
   * seconds for each listing). Undefined when find cannot do it here.
   */
  private async find(rel: string, recursive: boolean): Promise<FileEntry[] | undefined> {
    // `./` first, so that a name starting with `-` is not taken for an option of find.
    const start = quote(rel === '' ? '.' : `./${rel}`);
    const depth = recursive ? '' : ' -maxdepth 1';
    const script = `cd ${quote(this.workspace)} && { test -e ${start} || test -L ${start} || exit 3; } && find ${start} -mindepth 1${depth} -printf '%y %s %m %P\\0'`;
    const result = await this.exec(['sh', '-c', script], { user: 'root', timeoutMs: 120_000 });
    if (result.exitCode === 3) throw notFound(rel || '.');
    if (result.exitCode !== 0 || result.truncated) return undefined;
    const types: Record<string, FileEntry['type']> = { f: 'file', d: 'dir', l: 'symlink' };
    const entries: FileEntry[] = [];
    for (const line of result.stdout.split('\0')) {
      const match = /^(\w) (\d+) ([0-7]+) (.+)$/s.exec(line);
      const type = match ? types[match[1]!] : undefined;
      if (!match || type === undefined) continue;
      const path = rel === '' ? match[4]! : `${rel}/${match[4]}`;
      const mode = type === 'symlink' ? 0o120777 : Number.parseInt(match[3]!, 8);
      entries.push({ path, type, size: Number(match[2]), mode });
    }
    return entries;
  }

  async pull(options: PullOptions = {}): Promise<WorkspaceFile[]> {
    this.guard('pull');
    const wanted = pullSelection(options.only);
    const keep = (path: string) => path !== '' && !this.parts.excluded(path);
    const maxFileBytes = Math.min(
      parseSize(this.parts.options.maxFileSize),
      options.maxFileBytes ?? Number.POSITIVE_INFINITY,
    );
    // Files over maxFileSize are drained from the tar stream as it arrives, never held.
    const entries = await this.archive(
      '',
      (path, size) => keep(path) && wanted(path, 'file', size),
      maxFileBytes,
    );
    const files: WorkspaceFile[] = [];
    for (const e of entries) {
      if (e.type === 'dir' || !keep(e.path) || !wanted(e.path, e.type, e.size)) continue;
      // As every environment pulls: a link leading out of the workspace is recorded, not carried.
      if (
        e.type === 'symlink' &&
        linkLeaves(e.path, Buffer.from(e.data ?? []).toString('utf8'), this.workspace)
      )
        options.onSkipped?.({ path: e.path, size: e.size, reason: 'link' });
      else if (e.skipped) options.onSkipped?.({ path: e.path, size: e.size });
      else files.push({ path: e.path, mode: e.mode, data: e.data ?? new Uint8Array(0) });
    }
    return files.sort(byPath);
  }

  async push(files: WorkspaceFile[]): Promise<void> {
    this.guard('push');
    const wanted = files
      .map((f) => ({ ...f, path: this.relative(f.path) }))
      .filter((f) => !this.parts.excluded(f.path));
    for (const f of wanted) if (f.path === '') throw new Error('push() got a file without a path');
    // Everything but the excluded paths goes; then the files come in as one archive.
    const patterns = this.parts.options.excludes.map((e) =>
      e.includes('/') ? { path: `./${e.replace(/^\/+|\/+$/g, '')}` } : { path: `*/${e}` },
    );
    const prune = patterns.map((p) => `-path ${quote(p.path)}`).join(' -o ');
    const keep = patterns.map((p) => `! -path ${quote(p.path)} ! -path ${quote(`${p.path}/*`)}`).join(' ');
    const skip = prune === '' ? '' : `\\( ${prune} \\) -prune -o`;
    await this.root(
      `cd ${quote(this.workspace)} && find . -mindepth 1 ${skip} ! -type d -exec rm -f -- {} + && find . -mindepth 1 -depth -type d -empty ${keep} -delete`,
      'clearing the workspace',
    );
    if (wanted.length > 0) await this.put(wanted);
  }

  private snapshots(): SnapshotStore {
    if (!this.parts.store)
      throw new ClassifiedError('sandbox', 'no snapshot store is bound (tokens.SnapshotStore)');
    return this.parts.store;
  }

  async snapshot(): Promise<SnapshotRef> {
    this.guard('snapshot');
    return snapshotWorkspace(this.snapshots(), (options) => this.pull(options));
  }

  async restore(ref: SnapshotRef): Promise<void> {
    this.guard('restore');
    await this.push(await this.snapshots().get(ref));
  }

  /**
   * The container's own address on the run network: the host reaches it directly, so nothing is
   * published on a host port and other machines cannot reach it.
   */
  async expose(port: number): Promise<string> {
    this.guard('expose');
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new Error(`expose(${port}): not a TCP port`);
    return `http://${this.parts.ip}:${port}`;
  }

  close(): Promise<void> {
    this.closing ??= this.parts.dispose();
    return this.closing;
  }
}
