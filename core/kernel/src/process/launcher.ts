import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ClassifiedError } from '../contracts/status.js';

/** The launcher's program: plain JavaScript, shipped with the package (see its header). */
const helperFile = fileURLToPath(new URL('../../helper/process-launcher.mjs', import.meta.url));

export interface LaunchOptions {
  cwd: string;
  /** The command's whole environment: nothing of the runner's is added to it. */
  env: Record<string, string>;
  /** Written to the command's stdin, which is then closed; without it stdin is /dev/null. */
  stdin?: string | Uint8Array;
  /** Output forwarded per stream: this many bytes, and one more when there was more (so a cut shows). */
  maxOutputBytes: number;
  onOutput(stream: 'stdout' | 'stderr', chunk: Buffer): void;
}

export interface LaunchExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** From the start of the command to its leader's exit, as the launcher saw it. */
  durationMs: number;
}

/** A command that runs, as the leader of a process group of its own. */
export interface LaunchedProcess {
  readonly pid: number;
  /**
   * The leader exited (and what else ran in its group was killed). Rejects with class `sandbox`
   * when the launcher died first; the command's group is killed then too.
   */
  readonly exit: Promise<LaunchExit>;
  /** Every byte of output was delivered (after `exit`, or the launcher's death). */
  readonly closed: Promise<void>;
  /** Closes the output pipes early: a process that left the group may hold them open. */
  closePipes(): void;
}

/** A command whose program could not be started (not found, not executable, no such cwd). */
export interface LaunchFailure {
  readonly pid: undefined;
  readonly spawnError: string;
  /** The system's code, e.g. ENOENT or EACCES. */
  readonly spawnCode?: string;
}

type HelperMessage =
  | { type: 'spawned'; id: number; pid: number }
  | { type: 'output'; id: number; stream: 'stdout' | 'stderr'; data: Uint8Array }
  | { type: 'exit'; id: number; exitCode: number | null; signal: NodeJS.Signals | null; durationMs: number }
  | { type: 'failed'; id: number; message: string; code?: string }
  | { type: 'closed'; id: number };

interface Request {
  argv: string[];
  options: LaunchOptions;
  pid?: number;
  started(result: { pid: number } | LaunchFailure): void;
  refused(error: Error): void;
  exited(exit: LaunchExit): void;
  faulted(error: Error): void;
  closed(): void;
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}

/**
 * Starts commands through one small long-lived Node process (the launcher) instead of forking
 * the runner: a fork copies the parent's page tables and blocks its event loop, which for a
 * runner of a few hundred megabytes costs milliseconds of CPU per command and up to tens of
 * milliseconds of stall. The launcher is started on first use; when it dies, the commands it was
 * running fail with class `sandbox` (their groups killed) and the next command starts a new one.
 * Only an active launcher keeps the runner's event loop alive.
 */
export class ProcessLauncher {
  private helper: ChildProcess | undefined;
  private readonly requests = new Map<number, Request>();
  private nextId = 1;

  /** The launcher's pid while it runs: its children briefly carry its environment before they exec. */
  get pid(): number | undefined {
    return this.helper?.pid;
  }

  launch(argv: string[], options: LaunchOptions): Promise<LaunchedProcess | LaunchFailure> {
    const [file, ...args] = argv;
    if (file === undefined) throw new Error('exec needs a program: argv is empty');
    const helper = this.running();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      let exited!: (exit: LaunchExit) => void;
      let faulted!: (error: Error) => void;
      let closed!: () => void;
      const exit = new Promise<LaunchExit>((res, rej) => {
        exited = res;
        faulted = rej;
      });
      // A caller that only waits for `closed` must not see an unhandled rejection.
      exit.catch(() => undefined);
      const closedPromise = new Promise<void>((res) => {
        closed = res;
      });
      const request: Request = {
        argv,
        options,
        started: (result) =>
          resolve(
            result.pid === undefined
              ? result
              : {
                  pid: result.pid,
                  exit,
                  closed: closedPromise,
                  closePipes: () => this.send({ type: 'cut', id }),
                },
          ),
        refused: reject,
        exited,
        faulted,
        closed: () => {
          this.requests.delete(id);
          this.refresh();
          closed();
        },
      };
      this.requests.set(id, request);
      this.refresh();
      this.send(
        {
          type: 'spawn',
          id,
          file,
          args,
          cwd: options.cwd,
          env: options.env,
          stdin: options.stdin,
          maxOutputBytes: options.maxOutputBytes,
        },
        helper,
      );
    });
  }

  private running(): ChildProcess {
    if (this.helper) return this.helper;
    // Its own environment is empty: the commands get theirs with each request. It runs in a
    // session of its own, as the commands it starts do: a terminal's Ctrl-C (SIGINT to the whole
    // foreground group) or a signal to the runner's group reaches the runner alone, which ends
    // the commands itself (its abort, or the launcher's exit when the runner's channel closes).
    const helper = fork(helperFile, [], {
      execArgv: [],
      env: {},
      detached: true,
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    helper.on('message', (message: HelperMessage) => this.receive(message));
    helper.once('exit', (code, signal) => this.died(helper, signal ?? `code ${code}`));
    // A send to a launcher that is exiting fails here; its 'exit' fails the requests.
    helper.on('error', () => undefined);
    this.helper = helper;
    return helper;
  }

  private send(message: Record<string, unknown>, helper = this.helper): void {
    if (helper?.connected) helper.send(message);
  }

  /** Keeps the runner alive while commands run, and only then. */
  private refresh(): void {
    const helper = this.helper;
    if (!helper) return;
    const channel = helper.channel as { ref(): void; unref(): void } | undefined;
    if (this.requests.size > 0) {
      helper.ref();
      channel?.ref();
    } else {
      helper.unref();
      channel?.unref();
    }
  }

  private receive(message: HelperMessage): void {
    const request = this.requests.get(message.id);
    if (!request) return;
    switch (message.type) {
      case 'spawned':
        request.pid = message.pid;
        request.started({ pid: message.pid });
        break;
      case 'output': {
        const { data } = message;
        request.options.onOutput(message.stream, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
        break;
      }
      case 'exit':
        request.exited({
          exitCode: message.exitCode,
          signal: message.signal,
          durationMs: message.durationMs,
        });
        break;
      case 'failed': {
        const [file] = request.argv;
        request.started({
          pid: undefined,
          spawnError: `cannot start ${file}: ${message.message}`,
          ...(message.code === undefined ? {} : { spawnCode: message.code }),
        });
        break;
      }
      case 'closed':
        request.closed();
        break;
    }
  }

  /** Fails every command of a launcher that died, and kills what they started. */
  private died(helper: ChildProcess, how: string): void {
    if (this.helper === helper) this.helper = undefined;
    const requests = [...this.requests.values()];
    this.requests.clear();
    for (const request of requests) {
      const command = request.argv.join(' ');
      const error = new ClassifiedError(
        'sandbox',
        `the process launcher (pid ${helper.pid}) died (${how}) while \`${command.slice(0, 200)}\` ran; the command was killed`,
      );
      if (request.pid === undefined) {
        request.refused(error);
      } else {
        killGroup(request.pid);
        request.faulted(error);
      }
      request.closed();
    }
  }
}

/** The launcher of this process: every sandbox of the run starts its commands through it. */
export const processLauncher = new ProcessLauncher();
