import { randomUUID } from 'node:crypto';
import {
  ClassifiedError,
  classify,
  type ExecResult,
  emptyUsage,
  errorStatus,
  type ModelEndpoint,
  type Sandbox,
  type Session,
  type Status,
  type TrajectoryEvent,
  type TurnOptions,
} from '@longhaul/core';
import type { Options } from './options.js';

/** One session: each turn runs the command once and reports it as a tool call and its result. */
export class CommandSession implements Session {
  readonly id = `{{id}}-${randomUUID()}`;
  private started = false;
  private calls = 0;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly options: Options,
    private readonly model: ModelEndpoint | undefined,
  ) {}

  async *turn(prompt: string, { signal, limits }: TurnOptions): AsyncIterable<TrajectoryEvent> {
    const startedAt = Date.now();
    const end = (status: Status, finalText: string, error?: string): TrajectoryEvent => ({
      type: 'turn.end',
      result: {
        status,
        finalText,
        // The command reports no tokens; with a model, the gateway meters them and the kernel fills them in.
        usage: emptyUsage(),
        durationMs: Date.now() - startedAt,
        ...(error === undefined ? {} : { error }),
      },
    });
    // After an abort the turn ends at once, with the status the kernel put in the signal's reason.
    const aborted = () => end(classify(undefined, signal), '', `aborted: ${String(signal.reason)}`);

    if (!this.started) {
      this.started = true;
      yield {
        type: 'session.start',
        sessionId: this.id,
        resumed: false,
        ...(this.model ? { model: this.model.model } : {}),
      };
    }
    if (signal.aborted) {
      yield aborted();
      return;
    }

    const callId = `call-${++this.calls}`;
    const argv = this.options.command;
    yield { type: 'tool.call', id: callId, name: 'exec', input: { argv } };
    const timeoutMs = this.options.timeoutSeconds ? this.options.timeoutSeconds * 1000 : limits.timeoutMs;
    let result: ExecResult;
    try {
      result = await this.sandbox.exec(argv, {
        stdin: prompt,
        signal,
        env: this.environment(),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      yield { type: 'tool.result', id: callId, output: message, isError: true };
      if (signal.aborted) {
        yield aborted();
        return;
      }
      const classified = error instanceof ClassifiedError ? error : new ClassifiedError('sandbox', message);
      yield { type: 'error', errorClass: String(classified.errorClass), message };
      yield end(classify(classified), '', message);
      return;
    }
    const output = [result.stdout, result.stderr].filter((text) => text.length > 0).join('\n');
    yield { type: 'tool.result', id: callId, output, isError: result.exitCode !== 0 };
    if (signal.aborted) {
      yield aborted();
      return;
    }

    const finalText = result.stdout.trim();
    if (finalText.length > 0) yield { type: 'message', role: 'assistant', text: finalText };
    if (result.timedOut) {
      yield end('timeout', finalText, `${argv[0]} ran past ${timeoutMs} ms`);
    } else if (result.exitCode === 0) {
      yield end('ok', finalText);
    } else {
      const message = `${argv[0]} exited with ${result.exitCode ?? 'a signal'}: ${lastLine(result.stderr)}`;
      yield { type: 'error', errorClass: 'crash', message };
      yield end(errorStatus('crash'), finalText, message);
    }
  }

  /** Nothing to resume from: the command keeps no conversation. */
  state(): unknown {
    return {};
  }

  async close(): Promise<void> {}

  /** The run's gateway, when the agent has a model: a per-trial token, never a provider key. */
  private environment(): Record<string, string> {
    if (!this.model) return {};
    return {
      LONGHAUL_BASE_URL: this.model.baseUrl,
      LONGHAUL_API_KEY: this.model.token,
      LONGHAUL_MODEL: this.model.model,
    };
  }
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1) || '(no output on stderr)';
}
