import type { Sandbox } from './sandbox.js';
import type { Step, Task } from './task.js';
import type { TrajectoryEvent } from './trajectory.js';

/** What a harness's agent can do, declared once; the kernel and memory plugins check it, never guess. */
export interface HarnessCapabilities {
  /** A session can be continued after its process ended (`Session.state` → `openSession({resume})`). */
  resume: boolean;
  /** Files the agent reads as standing instructions (CLAUDE.md, AGENTS.md), for memory plugins. */
  memoryFiles: string[];
  /** The agent runs hooks memory plugins can use to inject context. */
  hooks: boolean;
}

/** What the turn is about; harnesses that need no model (oracle) act on it directly. */
export interface TurnFocus {
  task: Task;
  /** The steps this turn works on, in order (one for checkpoint scripts, all for single-shot). */
  steps: Step[];
  /** The reference state the workspace must reach when the turn is solved, if the task has one. */
  solution?: string;
}

/** Connection details for model traffic, handed out by the run's gateway per trial. */
export interface ModelEndpoint {
  /** Base URL as the sandbox reaches it (no trailing slash, no `/v1`). */
  baseUrl: string;
  /** Base URL as the runner's own process reaches it. */
  hostBaseUrl: string;
  /** Per-trial token for `model` only; never a provider key. */
  token: string;
  /** The model name the token allows; the one the harness's agent must ask for. */
  model: string;
}

/** What the kernel opens a session with. */
export interface SessionOptions {
  /** The trial this session belongs to (for names and logs). */
  trialId: string;
  /** State saved from an earlier session of this trial, when resuming. */
  resume?: unknown;
  /** Extra system prompt text from the experiment or a memory plugin. */
  systemPrompt?: string;
  /**
   * Where the agent reaches its model: the run's gateway, with a token for this trial (see
   * `Harness.gatewayModel`). Absent when the experiment has no `models:` or the harness needs no model.
   */
  model?: ModelEndpoint;
}

/** What a turn is given besides its prompt. */
export interface TurnOptions {
  /**
   * Aborted by the kernel on a limit (`timeout`, `budget`) or a cancel (`cancelled`), the reason
   * being that status: end the turn promptly with `classify(undefined, signal)` as its status.
   */
  signal: AbortSignal;
  /** The task and steps the turn works on (for harnesses that act on them, like the oracle). */
  focus: TurnFocus;
  /** Hard caps the harness passes to its agent where it can (the kernel enforces them anyway). */
  limits: { maxAgentTurns?: number; timeoutMs?: number };
}

/** One conversation with the agent; the kernel runs its turns one after another, never two at once. */
export interface Session {
  /** Unique within the run: the agent's own session id, or one the harness makes. */
  readonly id: string;
  /**
   * Runs one turn. The iterable yields the trajectory as it happens and ends with exactly one
   * `turn.end` event. It must end promptly once `signal` aborts, with the status the kernel put
   * in the signal's reason (see `classify`).
   */
  turn(prompt: string, options: TurnOptions): AsyncIterable<TrajectoryEvent>;
  /** Serializable state that `openSession({resume})` accepts, when the harness can resume. */
  state(): unknown;
  /** Ends the agent's conversation and what the session started; called once, after its last turn. */
  close(): Promise<void>;
}

/**
 * Runs an agent: the contract of the `harness` kind. The kernel calls `prepare` once per sandbox,
 * then opens sessions and runs their turns; a turn's events are the trajectory.
 *
 * ```ts
 * class MyHarness implements Harness {
 *   readonly capabilities = { resume: false, memoryFiles: ['AGENTS.md'], hooks: false };
 *   async prepare(sandbox: Sandbox) {
 *     const { stdout } = await sandbox.exec(['my-agent', '--version']);
 *     return { agent: 'my-agent', version: stdout.trim() };
 *   }
 *   async openSession(sandbox: Sandbox, options: SessionOptions): Promise<Session> {
 *     return new MySession(sandbox, options.model);
 *   }
 * }
 * ```
 */
export interface Harness {
  readonly capabilities: HarnessCapabilities;
  /**
   * The model of the run's gateway this harness's agent asks for. The kernel gets the trial's
   * endpoint for exactly this model and passes it as `SessionOptions.model`; the gateway refuses
   * (403) the agent's requests for any other model. When absent, the kernel takes the harness's
   * `model` option if it is a string (the convention of every harness that talks through the
   * gateway), else the gateway's default model. `null`: the agent asks the gateway for no model
   * (it calls a provider itself, or needs no model), and the kernel gets no endpoint for it.
   */
  readonly gatewayModel?: string | null;
  /** Installs or checks the agent in the sandbox; returns what goes into lock.json (versions). */
  prepare(sandbox: Sandbox): Promise<Record<string, unknown>>;
  openSession(sandbox: Sandbox, options: SessionOptions): Promise<Session>;
}

/**
 * The gateway model a harness's agent asks for, by the rule of `Harness.gatewayModel`: what the
 * harness declares, else its `model` option when that is a string; undefined means the gateway's
 * default model, null no model at all.
 */
export function harnessModel(harness: Harness, options: Record<string, unknown>): string | null | undefined {
  if (harness.gatewayModel !== undefined) return harness.gatewayModel;
  return typeof options.model === 'string' ? options.model : undefined;
}
