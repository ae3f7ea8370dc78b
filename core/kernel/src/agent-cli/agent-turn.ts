import { randomUUID } from 'node:crypto';
import { clampTimerMs } from '../config/timer-limit.js';
import type { Sandbox, SandboxProcess } from '../contracts/sandbox.js';
import { ClassifiedError, errorStatus, type Status } from '../contracts/status.js';
import type { TrajectoryEvent, TurnResult } from '../contracts/trajectory.js';
import type { Usage } from '../contracts/usage.js';
import { agentCommand } from './agent-command.js';
import { LineBuffer, tail } from './line-buffer.js';
import { sweepProcesses, turnMarker } from './process-sweep.js';

/** Translates an agent CLI's stdout, one line at a time, into trajectory events. */
export interface AgentStreamParser {
  /** Events for one line; throws AgentProtocolError for a line that is not the agent's format. */
  parse(line: string): TrajectoryEvent[];
  /** The outcome the agent reported (its final result event), once it has. */
  readonly outcome: { status: Status; error?: string } | undefined;
  /** The agent's last message so far. */
  readonly finalText: string;
  /** Tokens and cost the agent reported for this turn so far. */
  readonly usage: Usage;
  /** The last error the agent printed in its stream, for the message of a turn that crashed. */
  readonly lastError?: string;
}

/** A line of agent output that the parser cannot read. */
export class AgentProtocolError extends ClassifiedError {
  constructor(message: string) {
    super('protocol', message);
  }
}

export interface AgentTurnOptions {
  /** Name used in messages, e.g. `claude`. */
  agent: string;
  argv: string[];
  env: Record<string, string>;
  parser: AgentStreamParser;
  signal: AbortSignal;
  timeoutMs?: number;
  /** How often the process's output is read (the sandbox contract offers output so far). */
  pollMs?: number;
  /** Largest stdout kept; long sessions print a lot of JSON. */
  maxOutputBytes?: number;
  /** How long a stopped process may take to exit before the turn ends without it. */
  stopGraceMs?: number;
  /** How long an agent that reported its result may take to exit before it is stopped. */
  lingerMs?: number;
}

const abortReasons = new Set(['timeout', 'budget', 'cancelled']);

/**
 * The sandbox contract hands out a process's whole output so far, so each read copies it all:
 * the longer the output, the less often it is read (one more millisecond per 20 kB, at most 2 s).
 */
function pollInterval(baseMs: number, outputLength: number): number {
  return Math.min(2_000, baseMs + Math.floor(outputLength / 20_000));
}

function abortStatus(signal: AbortSignal): Status {
  const reason: unknown = signal.reason;
  if (typeof reason === 'string' && abortReasons.has(reason)) return reason as Status;
  if (reason instanceof ClassifiedError) return errorStatus(reason.errorClass);
  return 'cancelled';
}

function describeAbort(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  return typeof reason === 'string' ? reason : 'aborted';
}

function settleWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise.catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
}

/**
 * Runs one turn of an agent CLI in a sandbox and yields its trajectory as the process prints it,
 * ending with exactly one `turn.end`. Whatever happens (the agent crashes, prints something that
 * is not its format, runs past `timeoutMs`, or the signal aborts) the process is stopped and the
 * turn ends with a classified status and the events produced so far; it never waits forever.
 */
export async function* runAgentTurn(
  sandbox: Sandbox,
  options: AgentTurnOptions,
): AsyncGenerator<TrajectoryEvent> {
  const started = Date.now();
  const { parser, signal } = options;
  const stopGraceMs = options.stopGraceMs ?? 10_000;
  const lingerMs = options.lingerMs ?? 30_000;
  const end = (status: Status, error?: string): TrajectoryEvent => {
    const result: TurnResult = {
      status,
      finalText: parser.finalText,
      usage: parser.usage,
      durationMs: Date.now() - started,
    };
    if (error !== undefined) result.error = error;
    return { type: 'turn.end', result };
  };
  if (signal.aborted) {
    yield end(abortStatus(signal), `not started: ${describeAbort(signal)}`);
    return;
  }

  const marker = randomUUID();
  const command = agentCommand(options.argv, { ...options.env, [turnMarker]: marker });
  let process: SandboxProcess;
  try {
    process = await sandbox.start(command.argv, {
      env: command.env,
      user: 'agent',
      maxOutputBytes: options.maxOutputBytes ?? 512 * 1024 * 1024,
    });
  } catch (error) {
    const errorClass = error instanceof ClassifiedError ? error.errorClass : 'sandbox';
    yield end(errorStatus(errorClass), `could not start ${options.agent}: ${(error as Error).message}`);
    return;
  }

  let exitCode: number | null | undefined;
  let oomKilled = false;
  let diskLimitHit = false;
  let exited = false;
  const exit = process.wait().then(
    (result) => {
      exited = true;
      exitCode = result.exitCode;
      oomKilled = result.oomKilled === true;
      diskLimitHit = result.diskLimitHit === true;
    },
    () => {
      exited = true;
      exitCode = null;
    },
  );
  let stopped: { status: Status; error: string } | undefined;
  let wake: () => void = () => {};
  const stop = (status: Status, error: string) => {
    stopped ??= { status, error };
    wake();
  };
  const onAbort = () => stop(abortStatus(signal), `${options.agent} stopped: ${describeAbort(signal)}`);
  signal.addEventListener('abort', onAbort, { once: true });
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(
          () => stop('timeout', `${options.agent} ran past ${options.timeoutMs} ms`),
          clampTimerMs(options.timeoutMs),
        );

  const lines = new LineBuffer();
  let offset = 0;
  let firstBadLine: string | undefined;
  const read = (final: boolean): TrajectoryEvent[] => {
    const { stdout } = process.output();
    const fresh = stdout.slice(offset);
    offset = stdout.length;
    const events: TrajectoryEvent[] = [];
    for (const line of [...lines.push(fresh), ...(final ? lines.flush() : [])]) {
      try {
        events.push(...parser.parse(line));
      } catch (error) {
        firstBadLine ??= line.slice(0, 200);
        events.push({ type: 'error', errorClass: 'protocol', message: (error as Error).message });
      }
    }
    return events;
  };

  let reportedAt: number | undefined;
  try {
    while (!exited && !stopped) {
      yield* read(false);
      // An agent that reported its result but does not exit is done all the same.
      if (parser.outcome) reportedAt ??= Date.now();
      if (reportedAt !== undefined && Date.now() - reportedAt > lingerMs) break;
      await Promise.race([
        exit,
        new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, pollInterval(options.pollMs ?? 100, offset));
        }),
      ]);
    }
    if (!exited) {
      await settleWithin(sweepProcesses(sandbox, marker), stopGraceMs);
      await settleWithin(process.kill(), stopGraceMs);
      await settleWithin(exit, stopGraceMs);
    }
    yield* read(true);
    // Whatever the agent left running (background servers, stuck commands) ends with the turn.
    await settleWithin(sweepProcesses(sandbox, marker), stopGraceMs);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    // The caller stopped reading before the turn ended: stop everything the turn started.
    if (!exited) {
      void sweepProcesses(sandbox, marker);
      void process.kill().catch(() => {});
    }
  }

  if (stopped) {
    yield end(stopped.status, stopped.error);
    return;
  }
  if (parser.outcome) {
    yield end(parser.outcome.status, parser.outcome.error);
    return;
  }
  const stderr = tail(process.output().stderr);
  if (oomKilled) {
    yield end(errorStatus('oom'), `${options.agent} was killed for memory by its sandbox's limit`);
    return;
  }
  if (diskLimitHit) {
    yield end(errorStatus('disk'), `${options.agent} was stopped: its sandbox went past its disk limit`);
    return;
  }
  if (firstBadLine !== undefined) {
    yield end(
      errorStatus('protocol'),
      `${options.agent} printed output that is not its event stream (first bad line: ${firstBadLine})${stderr ? `; stderr: ${stderr}` : ''}`,
    );
    return;
  }
  const cause = [parser.lastError, stderr].filter(Boolean).join('; ');
  yield end(
    errorStatus('crash'),
    `${options.agent} exited with code ${exitCode ?? 'none'} before reporting a result${cause ? `: ${cause}` : ''}`,
  );
}
