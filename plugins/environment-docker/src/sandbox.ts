import { posix } from 'node:path';
import {
  ClassifiedError,
  DiskWatch,
  diskUsage,
  type ExecOptions,
  type FileEntry,
  type FolderWorkspace,
  heldRemovedBytes,
  type PullOptions,
  type ReadFileOptions,
  type Sandbox,
  type SnapshotRef,
  type SnapshotStore,
  type WorkspaceFile,
} from '@longhaul/core';
import type Docker from 'dockerode';
import { agentUser } from './archive.js';
import type { Containment } from './containment.js';
import { DockerCommand as Command, type DockerCommand, type DockerExecResult } from './exec.js';
import { DockerJudgeArea } from './judge-area.js';
import { type DockerOptions, parseSize } from './options.js';
import type { ContainerCgroup } from './proc.js';

const defaultMaxOutputBytes = 16 * 1024 * 1024;

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
  /** The workspace volume as this host sees it (see workspaceVolume): every file method goes through it. */
  files: FolderWorkspace;
  /** Where the container sees the workspace (the option, or where the task asks for it). */
  workspace: string;
  /**
   * Host folders of what the container writes to disk: its writable layer (overlay2's UpperDir)
   * and the workspace volume's folder. Watched against the `disk` option while commands run.
   */
  diskPaths: string[];
  /** Refreshes the host firewall before commands run (a gateway may have started listening). */
  beforeCommand: () => Promise<void>;
  /** Removes the container and its volume, and releases the network. */
  dispose: () => Promise<void>;
}

/**
 * A container with the workspace on a volume. Commands run through `docker exec` as the agent
 * (uid 1000) unless they ask for root. Files are read and written on this host, in the volume's
 * folder, through the kernel's FolderWorkspace: paths are opened by handles beneath the workspace,
 * links are followed only while they stay inside it (judged as the container sees them), and
 * snapshots and restores stream. Nothing here depends on tools inside the image.
 */
export class DockerSandbox implements Sandbox {
  readonly id: string;
  readonly workspace: string;
  readonly hostAddress: string;
  /** `/judge`, root's: see DockerJudgeArea. */
  readonly judge: DockerJudgeArea;
  private closing: Promise<void> | undefined;
  private readonly diskBytes: number;
  private readonly disk: DiskWatch;

  constructor(private readonly parts: SandboxParts) {
    this.id = parts.container.id.slice(0, 12);
    this.workspace = parts.workspace;
    this.hostAddress = parts.hostAddress;
    this.judge = new DockerJudgeArea(parts.container, (argv, options) => this.exec(argv, options));
    this.diskBytes = parseSize(parts.options.disk);
    // Measured on this host as root: du follows no link and stays on the folders' file system;
    // files the container's processes removed but hold open take space du does not see.
    this.disk = new DiskWatch({
      limitBytes: this.diskBytes,
      measure: async () => {
        const files = await diskUsage(parts.diskPaths);
        const held = await heldRemovedBytes(await parts.cgroup.processes()).catch(() => 0);
        return files === undefined ? undefined : files + held;
      },
      probe: parts.diskPaths[0],
      onExceeded: () => parts.containment.stopForDisk(),
    });
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
      this.disk.begin();
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
        diskBytes: this.diskBytes,
      }).catch((error: unknown) => {
        this.disk.end();
        throw error;
      });
      void command
        .wait()
        .finally(() => this.disk.end())
        .catch(() => undefined);
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

  // File methods never open a path whole: see FolderWorkspace and the kernel's WorkspaceHandle.
  async readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    this.guard('readFile');
    return this.parts.files.readFile(path, options);
  }

  async writeFile(path: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
    this.guard('writeFile');
    await this.parts.files.writeFile(path, data, options.mode);
  }

  async remove(path: string): Promise<void> {
    this.guard('remove');
    await this.parts.files.remove(path);
  }

  async list(path = '', options: { recursive?: boolean } = {}): Promise<FileEntry[]> {
    this.guard('list');
    return this.parts.files.list(path, options.recursive ?? false);
  }

  async pull(options: PullOptions = {}): Promise<WorkspaceFile[]> {
    this.guard('pull');
    return this.parts.files.pull(options);
  }

  async push(files: WorkspaceFile[]): Promise<void> {
    this.guard('push');
    await this.parts.files.push(files);
  }

  private snapshots(): SnapshotStore {
    if (!this.parts.store)
      throw new ClassifiedError('sandbox', 'no snapshot store is bound (tokens.SnapshotStore)');
    return this.parts.store;
  }

  async snapshot(): Promise<SnapshotRef> {
    this.guard('snapshot');
    return this.parts.files.snapshot(this.snapshots());
  }

  async restore(ref: SnapshotRef): Promise<void> {
    this.guard('restore');
    await this.parts.files.restore(this.snapshots(), ref);
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
    this.disk.close();
    this.closing ??= this.parts.dispose();
    return this.closing;
  }
}
