import { randomUUID } from 'node:crypto';
import {
  addUsage,
  ClassifiedError,
  classify,
  emptyUsage,
  type Sandbox,
  type Session,
  type Status,
  type TrajectoryEvent,
  type TurnOptions,
  type Usage,
} from '@longhaul/core';
import { generateText, type ModelMessage, type ToolCallPart, type ToolResultPart } from 'ai';
import type { ResolvedModel } from './model.js';
import type { IdeSettings } from './options.js';
import { withRetries } from './retry.js';
import { BackgroundProcesses } from './tools/background.js';
import { PathPolicy } from './tools/policy.js';
import { aiTools, madeChange, offeredTools, resultText, runTool, taskTags } from './tools/registry.js';
import { SyntaxChecker } from './tools/syntax.js';
import type { IdeTool, ToolContext } from './tools/tool.js';
import { truncateHistory } from './truncate.js';

/** What `state()` returns and `openSession({resume})` accepts: the whole conversation. */
export interface IdeState {
  version: 1;
  sessionId: string;
  messages: ModelMessage[];
  /** Model calls made over the session's life. */
  iterations: number;
}

export function isIdeState(value: unknown): value is IdeState {
  const state = value as Partial<IdeState> | null;
  return state?.version === 1 && typeof state.sessionId === 'string' && Array.isArray(state.messages);
}

/** The completion guard's message, as IDE-Bench's harness words it. */
export const nudgeText =
  'Stop exploring and implement now: open the confirmed file, apply a minimal edit_file to the target function, read it back, and continue with small iterative edits until the change aligns with the expected behavior/diff.';

/** Cuts the middle out of long tool output, keeping its start and its end. */
export function capOutput(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  return `${text.slice(0, half)}\n...[${text.length - limit} characters cut]...\n${text.slice(-half)}`;
}

/**
 * `work`, or a rejection with the signal's reason as soon as it aborts: a tool that ignores its
 * signal (an extra tool, an MCP server that never answers) cannot keep the turn past its limit.
 * What it does afterwards is left to finish on its own.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * One conversation with the model. Each iteration is one model call; the tool calls it returns
 * run in order, inside the sandbox, and their results go back as one tool message. A turn ends
 * when the model answers without tool calls, at the iteration cap, on a fault, or on abort.
 */
export class IdeSession implements Session {
  readonly id: string;
  private messages: ModelMessage[];
  private iterations: number;
  private announced = false;
  private readonly resumed: boolean;
  private readonly background = new BackgroundProcesses();
  private readonly policy: PathPolicy;
  private readonly syntax: SyntaxChecker;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly options: IdeSettings,
    private readonly model: ResolvedModel,
    private readonly system: string,
    resume: IdeState | undefined,
    private readonly extraTools: readonly IdeTool[] = [],
    private readonly onClose: () => Promise<void> = async () => {},
    /** Text put before the first user message of a new conversation (profile upstream: its prompt). */
    private readonly firstMessagePrefix?: string,
  ) {
    this.id = resume?.sessionId ?? `ide-${randomUUID()}`;
    this.messages = resume ? [...resume.messages] : [];
    this.iterations = resume?.iterations ?? 0;
    this.resumed = resume !== undefined;
    this.policy = new PathPolicy(sandbox.workspace, options.protected);
    this.syntax = new SyntaxChecker(sandbox);
  }

  async *turn(prompt: string, { signal, focus }: TurnOptions): AsyncIterable<TrajectoryEvent> {
    const started = Date.now();
    let usage: Usage = emptyUsage();
    let finalText = '';
    const end = (status: Status, error?: string): TrajectoryEvent => ({
      type: 'turn.end',
      result: { status, finalText, usage, durationMs: Date.now() - started, ...(error ? { error } : {}) },
    });
    const aborted = () => end(classify(undefined, signal), `aborted: ${String(signal.reason)}`);

    if (!this.announced) {
      this.announced = true;
      yield { type: 'session.start', sessionId: this.id, resumed: this.resumed, model: this.model.name };
    }
    const text =
      this.messages.length === 0 && this.firstMessagePrefix
        ? `${this.firstMessagePrefix.trimEnd()}\n\n${prompt}`
        : prompt;
    yield { type: 'message', role: 'user', text };
    this.messages.push({ role: 'user', content: text });

    const offered = offeredTools(this.options, taskTags(focus.task.metadata), this.extraTools);
    const tools = aiTools(offered, this.options);
    const ctx: ToolContext = {
      sandbox: this.sandbox,
      policy: this.policy,
      options: this.options,
      signal,
      background: this.background,
      syntax: this.syntax,
    };
    const o = this.options;
    let edited = false;

    for (let iteration = 1; ; iteration++) {
      if (signal.aborted) return yield aborted();
      if (iteration > o.maxIterations) {
        const message = `iteration limit: ${o.maxIterations} model calls without a final answer`;
        yield { type: 'error', errorClass: 'iteration_limit', message };
        return yield end('failed', message);
      }
      const cut = truncateHistory(this.system, this.messages, {
        afterMessages: o.truncateAfterMessages,
        budgetTokens: Math.floor(o.contextWindow * o.contextShare),
      });
      if (cut) {
        this.messages = cut.messages;
        yield {
          type: 'compaction',
          trigger: 'auto',
          tokensBefore: cut.tokensBefore,
          tokensAfter: cut.tokensAfter,
        };
      }

      const retries: TrajectoryEvent[] = [];
      let result: Awaited<ReturnType<typeof generateText>>;
      try {
        result = await withRetries(
          (callSignal) =>
            generateText({
              model: this.model.model,
              system: this.system,
              messages: this.messages,
              tools,
              toolChoice: 'auto',
              temperature: o.temperature,
              maxOutputTokens: o.maxOutputTokens,
              maxRetries: 0,
              abortSignal: callSignal,
            }),
          {
            retries: o.retries,
            delayMs: o.retryDelaySeconds * 1000,
            callTimeoutMs: o.callTimeoutSeconds * 1000,
            signal,
            onRetry: (attempt, error, delayMs) =>
              retries.push({
                type: 'error',
                errorClass: 'retry',
                message: `model call attempt ${attempt} failed (${error instanceof Error ? error.message : String(error)}); retrying in ${delayMs} ms`,
              }),
          },
        );
      } catch (error) {
        yield* retries;
        if (signal.aborted) return yield aborted();
        const status = classify(error);
        const message = error instanceof Error ? error.message : String(error);
        yield { type: 'error', errorClass: status.slice('error:'.length), message };
        return yield end(status, message);
      }
      yield* retries;
      this.iterations++;

      const callUsage: Usage = {
        inputTokens: result.usage.inputTokens ?? 0,
        outputTokens: result.usage.outputTokens ?? 0,
        cacheReadTokens: result.usage.inputTokenDetails?.cacheReadTokens ?? 0,
        cacheWriteTokens: result.usage.inputTokenDetails?.cacheWriteTokens ?? 0,
        costUsd: 0,
      };
      usage = addUsage(usage, callUsage);
      yield { type: 'usage', usage: callUsage, model: this.model.name };
      if (result.reasoningText) yield { type: 'reasoning', text: result.reasoningText };
      if (result.text) yield { type: 'message', role: 'assistant', text: result.text };
      // The SDK answers calls it could not parse itself; the loop answers every call, so only the call is kept.
      this.messages.push(...result.response.messages.filter((message) => message.role !== 'tool'));

      const calls = result.content.filter(
        (part): part is ToolCallPart & { type: 'tool-call' } => part.type === 'tool-call',
      );
      if (calls.length === 0) {
        if (o.nudge && !edited && iteration < o.maxIterations) {
          this.messages.push({ role: 'user', content: nudgeText });
          yield { type: 'message', role: 'user', text: nudgeText };
          continue;
        }
        finalText = result.text;
        return yield end('ok');
      }

      const answers: ToolResultPart[] = [];
      for (const call of calls) {
        const input = call.input as Record<string, unknown> | undefined;
        const explanation = typeof input?.explanation === 'string' ? input.explanation : undefined;
        yield {
          type: 'tool.call',
          id: call.toolCallId,
          name: call.toolName,
          input: call.input,
          ...(explanation ? { explanation } : {}),
        };
        let output: string;
        let isError: boolean;
        try {
          const toolResult = await untilAborted(runTool(call.toolName, call.input, offered, ctx), signal);
          output = capOutput(resultText(toolResult, o), o.outputLimit);
          isError = !toolResult.success;
          if (madeChange(call.toolName, toolResult, o)) edited = true;
        } catch (error) {
          if (signal.aborted) return yield aborted();
          const fault =
            error instanceof ClassifiedError ? error : new ClassifiedError('sandbox', String(error));
          yield { type: 'error', errorClass: fault.errorClass, message: fault.message };
          return yield end(classify(fault), fault.message);
        }
        yield { type: 'tool.result', id: call.toolCallId, output, isError };
        answers.push({
          type: 'tool-result',
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          output: { type: 'text', value: output },
        });
      }
      this.messages.push({ role: 'tool', content: answers });
    }
  }

  state(): IdeState {
    return { version: 1, sessionId: this.id, messages: this.messages, iterations: this.iterations };
  }

  async close(): Promise<void> {
    await this.background.stopAll();
    await this.onClose();
  }
}
