import { type Duplex, Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import type { ExecResult, SandboxProcess } from '@longhaul/core';
import type Docker from 'dockerode';
import type { Call, Containment, Leader } from './containment.js';
import { type ContainerCgroup, type LimitCounters, namespacePid, processEntry } from './proc.js';

/** Keeps the first `cap` bytes of a stream and notes whether anything was dropped. */
class BoundedOutput extends Writable {
  private readonly kept: Buffer[] = [];
  private size = 0;
  dropped = false;

  constructor(private readonly cap: number) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    const room = Math.max(0, this.cap - this.size);
    if (chunk.length > room) this.dropped = true;
    if (room > 0) {
      const part = chunk.subarray(0, room);
      this.kept.push(part);
      this.size += part.length;
    }
    done();
  }

  text(): string {
    return Buffer.concat(this.kept).toString('utf8');
  }
}

export interface CommandRequest {
  argv: string[];
  /** `uid:gid` or `root`. */
  user: string;
  cwd: string;
  env: Record<string, string>;
  stdin?: string | Uint8Array;
  maxOutputBytes: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Started with `start()`: it runs until it exits, is killed or the sandbox is swept. */
  background: boolean;
  /** The sandbox's disk limit, in bytes: each file's size limit, and what its files may take. */
  diskBytes: number;
}

/** What a command adds to ExecResult in a container: whether it ran into the pids limit. */
export interface DockerExecResult extends ExecResult {
  pidsLimitHit?: boolean;
}

/** A process the kernel stopped for a file past RLIMIT_FSIZE (SIGXFSZ), as Docker and shells report it. */
const fileTooLarge = 128 + 25;

/** How long a command's output may stay open after its process tree was killed. */
const drainMs = 5_000;

/** How often a running command's process is looked at, to notice it exited. */
const exitPollMs = 100;

/**
 * One `docker exec`. A timeout, an abort or kill() SIGKILLs the command's whole process tree on
 * the host; when the command's process exits, whatever it left running is killed too, however it
 * detached (see containment.ts), so nothing outlives the call that started it.
 */
export class DockerCommand implements SandboxProcess, Call {
  pid: number | undefined;
  leader: Leader | undefined;
  private readonly stdout: BoundedOutput;
  private readonly stderr: BoundedOutput;
  /** The command's host pid, looked up while it runs (Docker reports it a moment after the start). */
  private hostPid!: Promise<number>;
  private stopped: 'timeout' | 'kill' | undefined;
  /** Stopped with every process of the sandbox: its files went past the disk limit. */
  private diskStopped = false;
  private result: Promise<DockerExecResult> | undefined;
  private streamEnded!: Promise<void>;
  private streamDone = false;
  private stream!: Duplex;
  private timer: NodeJS.Timeout | undefined;
  private readonly startedAt = Date.now();

  private constructor(
    private readonly exec: Docker.Exec,
    private readonly request: CommandRequest,
    private readonly cgroup: ContainerCgroup,
    private readonly containment: Containment,
    private readonly before: LimitCounters,
  ) {
    this.stdout = new BoundedOutput(request.maxOutputBytes);
    this.stderr = new BoundedOutput(request.maxOutputBytes);
  }

  static async run(
    docker: Docker,
    container: Docker.Container,
    cgroup: ContainerCgroup,
    containment: Containment,
    request: CommandRequest,
  ): Promise<DockerCommand> {
    const exec = await container.exec({
      Cmd: request.argv,
      User: request.user,
      WorkingDir: request.cwd,
      Env: Object.entries(request.env).map(([key, value]) => `${key}=${value}`),
      AttachStdin: request.stdin !== undefined,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
    });
    const command = new DockerCommand(exec, request, cgroup, containment, await cgroup.read());
    containment.add(command);
    try {
      await command.begin(docker);
    } catch (error) {
      command.leader ??= { pid: 0, start: undefined };
      await containment.end(command);
      throw error;
    }
    return command;
  }

  private async begin(docker: Docker): Promise<void> {
    const stdin = this.request.stdin;
    this.stream = (await this.exec.start({ hijack: true, stdin: stdin !== undefined })) as unknown as Duplex;
    this.streamEnded = new Promise<void>((resolve) => {
      this.stream.on('end', resolve);
      this.stream.on('close', resolve);
      this.stream.on('error', () => resolve());
    }).then(() => {
      this.streamDone = true;
    });
    docker.modem.demuxStream(this.stream, this.stdout, this.stderr);
    if (stdin !== undefined) {
      this.stream.write(typeof stdin === 'string' ? stdin : Buffer.from(stdin));
      this.stream.end();
    }
    this.hostPid = this.processId().then(async (pid) => {
      this.leader = { pid, start: pid > 0 ? (await processEntry(pid))?.start : undefined };
      return pid;
    });
    void this.hostPid.then(async (pid) => {
      if (pid > 0) this.pid ??= await namespacePid(pid);
    });
    const { timeoutMs, signal } = this.request;
    if (timeoutMs !== undefined) this.timer = setTimeout(() => void this.stop('timeout'), timeoutMs);
    const onAbort = () => void this.stop('kill');
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    this.result = this.finish().finally(() => signal?.removeEventListener('abort', onAbort));
  }

  /** The exec's state, or undefined once its container is gone (the sandbox was closed). */
  private async inspect(): Promise<Docker.ExecInspectInfo | undefined> {
    return this.exec.inspect().catch(() => undefined);
  }

  private async processId(): Promise<number> {
    for (let attempt = 0; attempt < 500; attempt++) {
      const info = await this.inspect();
      if (info === undefined) return 0;
      if (info.Pid > 0 || (!info.Running && info.ExitCode !== null)) return info.Pid;
      await delay(attempt < 50 ? 2 : 20);
    }
    return 0;
  }

  output(): { stdout: string; stderr: string } {
    return { stdout: this.stdout.text(), stderr: this.stderr.text() };
  }

  wait(): Promise<DockerExecResult> {
    return this.result as Promise<DockerExecResult>;
  }

  async kill(): Promise<void> {
    await this.stop('kill');
    await this.wait();
  }

  get background(): boolean {
    return this.request.background;
  }

  leaderKnown(): Promise<unknown> {
    return this.hostPid;
  }

  swept(reason?: 'disk'): void {
    this.stopped ??= 'kill';
    if (reason === 'disk') this.diskStopped = true;
    this.dropOutputLater();
  }

  private async stop(reason: 'timeout' | 'kill'): Promise<void> {
    this.stopped ??= reason;
    await this.hostPid;
    await this.containment.end(this);
    this.dropOutputLater();
  }

  /** The tree is gone; output something still holds open must not keep the caller waiting. */
  private dropOutputLater(): void {
    setTimeout(() => this.stream.destroy(), drainMs).unref();
  }

  /** Resolves when the command's own process has exited (its output may still be held open). */
  private async exited(): Promise<void> {
    await this.hostPid;
    const leader = this.leader;
    if (leader === undefined || leader.pid === 0) return this.streamEnded;
    while (!this.streamDone) {
      const entry = await processEntry(leader.pid);
      if (entry === undefined || entry.state === 'Z' || entry.start !== leader.start) return;
      await delay(exitPollMs);
    }
  }

  private async finish(): Promise<DockerExecResult> {
    // The call ends when its process exits, even when something it started keeps the output open.
    await Promise.race([this.streamEnded, this.exited()]);
    await this.containment.end(this);
    if (!this.streamDone) {
      await Promise.race([this.streamEnded, delay(drainMs, undefined, { ref: false })]);
      this.stream.destroy();
    }
    clearTimeout(this.timer);
    let info = await this.inspect();
    for (let i = 0; info?.Running && i < drainMs / 20; i++) {
      await delay(20);
      info = await this.inspect();
    }
    const after = await this.cgroup.read();
    const killedBySignal = info?.ExitCode === 137;
    const result: DockerExecResult = {
      exitCode: info === undefined || info.Running ? null : info.ExitCode,
      stdout: this.stdout.text(),
      stderr: this.stderr.text(),
      timedOut: this.stopped === 'timeout',
      durationMs: Date.now() - this.startedAt,
    };
    if (killedBySignal && this.stopped === undefined && after.oomKills > this.before.oomKills)
      result.oomKilled = true;
    if (after.pidsMax > this.before.pidsMax) result.pidsLimitHit = true;
    if (this.stdout.dropped || this.stderr.dropped) result.truncated = true;
    if (this.diskStopped || result.exitCode === fileTooLarge) {
      result.diskLimitHit = true;
      result.stderr += this.diskStopped
        ? `longhaul: stopped: the sandbox's files went past its disk limit of ${this.request.diskBytes} bytes; remove files to go on\n`
        : `longhaul: a file reached the sandbox's disk limit of ${this.request.diskBytes} bytes\n`;
    }
    return result;
  }
}
