import {
  emptyUsage,
  type Harness,
  type HarnessCapabilities,
  readDirectoryFiles,
  type Sandbox,
  type Session,
  type SessionOptions,
  type Status,
  type TrajectoryEvent,
  type TurnFocus,
  type TurnOptions,
  type Usage,
} from '@longhaul/core';

/** What the fake agent does in one turn. */
export interface FakeTurn {
  /** Files to write (text) or delete (null), relative to the workspace. */
  edits?: Record<string, string | null>;
  /** Make the workspace equal to the turn's reference solution, as the oracle does. */
  writeSolution?: boolean;
  /** The agent's final message. */
  text?: string;
  /** How the turn ends (default ok). */
  status?: Status;
  usage?: Partial<Usage>;
  /** Events yielded before `turn.end`. */
  events?: TrajectoryEvent[];
  /** Work this long before ending; an abort ends it early with the abort's reason. */
  sleepMs?: number;
  /** Never end and ignore the abort signal: a stuck agent. */
  hang?: boolean;
  /** Throw this from the turn's iterator (after the edits). */
  throws?: Error;
}

export interface FakeTurnContext {
  prompt: string;
  focus: TurnFocus;
  /** 0-based count of turns this harness has run, over all sessions. */
  turn: number;
  session: FakeSession;
}

export interface FakeHarnessOptions {
  /** The turns in order, or a function choosing each one; default: every turn writes the solution. */
  turns?: FakeTurn[] | ((ctx: FakeTurnContext) => FakeTurn);
  capabilities?: Partial<HarnessCapabilities>;
  /** What `prepare` returns, an error it throws, or `hang`: it never returns. */
  prepare?: Record<string, unknown> | Error | 'hang';
  /** An error `openSession` throws. */
  openSessionError?: Error;
}

/**
 * A harness without an agent: each turn applies scripted edits to the sandbox and streams a
 * small trajectory. It can be told to throw, sleep or hang, and records what it was asked.
 */
export class FakeHarness implements Harness {
  readonly capabilities: HarnessCapabilities;
  readonly prompts: string[] = [];
  readonly sessions: { id: string; options: SessionOptions }[] = [];
  readonly closedSessions: string[] = [];
  private turnCount = 0;

  constructor(readonly options: FakeHarnessOptions = {}) {
    this.capabilities = { resume: false, memoryFiles: [], hooks: false, ...options.capabilities };
  }

  async prepare(_sandbox: Sandbox): Promise<Record<string, unknown>> {
    const { prepare } = this.options;
    if (prepare instanceof Error) throw prepare;
    if (prepare === 'hang') return new Promise(() => {});
    return prepare ?? { agent: 'fake', version: '1.0.0' };
  }

  async openSession(sandbox: Sandbox, options: SessionOptions): Promise<Session> {
    if (this.options.openSessionError) throw this.options.openSessionError;
    const session = new FakeSession(`session-${this.sessions.length + 1}`, sandbox, this, options.resume);
    this.sessions.push({ id: session.id, options });
    return session;
  }

  /** @internal the next turn's script */
  nextTurn(ctx: Omit<FakeTurnContext, 'turn'>): FakeTurn {
    const turn = this.turnCount++;
    this.prompts.push(ctx.prompt);
    const { turns } = this.options;
    if (typeof turns === 'function') return turns({ ...ctx, turn });
    return turns?.[turn] ?? { writeSolution: true };
  }
}

export class FakeSession implements Session {
  /** Prompts this session received, including those of the session it resumed. */
  readonly history: string[];

  constructor(
    readonly id: string,
    private readonly sandbox: Sandbox,
    private readonly harness: FakeHarness,
    resume: unknown,
  ) {
    this.history = Array.isArray((resume as { history?: unknown })?.history)
      ? [...(resume as { history: string[] }).history]
      : [];
  }

  async *turn(prompt: string, options: TurnOptions): AsyncIterable<TrajectoryEvent> {
    const started = Date.now();
    this.history.push(prompt);
    const script = this.harness.nextTurn({ prompt, focus: options.focus, session: this });
    yield { type: 'session.start', sessionId: this.id, resumed: this.history.length > 1 };
    yield { type: 'message', role: 'user', text: prompt };
    if (script.writeSolution && options.focus.solution) {
      await this.sandbox.push(await readDirectoryFiles(options.focus.solution));
    }
    for (const [path, content] of Object.entries(script.edits ?? {})) {
      if (content === null) await this.sandbox.remove(path);
      else await this.sandbox.writeFile(path, content);
      yield { type: 'tool.call', id: path, name: 'write_file', input: { path } };
      yield { type: 'tool.result', id: path, output: 'ok', isError: false };
    }
    for (const event of script.events ?? []) yield event;
    if (script.usage) yield { type: 'usage', usage: script.usage };
    if (script.throws) throw script.throws;
    if (script.hang) await new Promise(() => {});
    let status: Status = script.status ?? 'ok';
    if (script.sleepMs) {
      const aborted = await sleepUnlessAborted(script.sleepMs, options.signal);
      if (aborted) status = options.signal.reason as Status;
    }
    const usage = { ...emptyUsage(), ...script.usage };
    yield {
      type: 'turn.end',
      result: { status, finalText: script.text ?? 'done', usage, durationMs: Date.now() - started },
    };
  }

  state(): unknown {
    return { history: this.history };
  }

  async close(): Promise<void> {
    this.harness.closedSessions.push(this.id);
  }
}

/** Resolves true when `signal` aborted before `ms` passed. */
function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(false);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(true);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
