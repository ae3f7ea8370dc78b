import { type Duplex, Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import type { ExecResult, SandboxProcess } from '@longhaul/core';
import type Docker from 'dockerode';
import { type ContainerCgroup, killSession, type LimitCounters, namespacePid } from './proc.js';

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
}

/** What a command adds to ExecResult in a container: whether it ran into the pids limit. */
export interface DockerExecResult extends ExecResult {
  pidsLimitHit?: boolean;
}

/** How long a command's output may stay open after its process tree was killed. */
const drainMs = 5_000;

/**
 * One `docker exec`. A timeout, an abort or kill() SIGKILLs the command's whole process tree on
 * the host (see proc.ts); when the command ends by itself, whatever it left running is killed too,
 * so nothing outlives the call that started it.
 */
export class DockerCommand implements SandboxProcess {
  pid: number | undefined;
  private readonly stdout: BoundedOutput;
  private readonly stderr: BoundedOutput;
  /** The command's host pid, looked up while it runs (Docker reports it a moment after the start). */
  private hostPid!: Promise<number>;
  private stopped: 'timeout' | 'kill' | undefined;
  private result: Promise<DockerExecResult> | undefined;
  private streamEnded!: Promise<void>;
  private stream!: Duplex;
  private timer: NodeJS.Timeout | undefined;
  private readonly startedAt = Date.now();

  private constructor(
    private readonly exec: Docker.Exec,
    private readonly request: CommandRequest,
    private readonly cgroup: ContainerCgroup,
    private readonly before: LimitCounters,
  ) {
    this.stdout = new BoundedOutput(request.maxOutputBytes);
    this.stderr = new BoundedOutput(request.maxOutputBytes);
  }

  static async run(
    docker: Docker,
    container: Docker.Container,
    cgroup: ContainerCgroup,
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
    const command = new DockerCommand(exec, request, cgroup, await cgroup.read());
    await command.begin(docker);
    return command;
  }

  private async begin(docker: Docker): Promise<void> {
    const stdin = this.request.stdin;
    this.stream = (await this.exec.start({ hijack: true, stdin: stdin !== undefined })) as unknown as Duplex;
    this.streamEnded = new Promise((resolve) => {
      this.stream.on('end', resolve);
      this.stream.on('close', resolve);
      this.stream.on('error', () => resolve());
    });
    docker.modem.demuxStream(this.stream, this.stdout, this.stderr);
    if (stdin !== undefined) {
      this.stream.write(typeof stdin === 'string' ? stdin : Buffer.from(stdin));
      this.stream.end();
    }
    this.hostPid = this.processId();
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

  private async stop(reason: 'timeout' | 'kill'): Promise<void> {
    this.stopped ??= reason;
    const pid = await this.hostPid;
    if (pid > 0) await killSession(this.cgroup, pid);
    // The tree is gone; output the daemon still holds open must not keep the caller waiting.
    setTimeout(() => this.stream.destroy(), drainMs).unref();
  }

  private async finish(): Promise<DockerExecResult> {
    await this.streamEnded;
    // Whatever the command left behind in its session (a daemonized child) goes with it.
    const pid = await this.hostPid;
    if (pid > 0) await killSession(this.cgroup, pid);
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
    return result;
  }
}
