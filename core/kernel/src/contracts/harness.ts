import type { Sandbox } from './sandbox.js';
import type { Step, Task } from './task.js';
import type { TrajectoryEvent } from './trajectory.js';

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
  /** Per-trial token; never a provider key. */
  token: string;
  /** Model name the harness should ask for. */
  model: string;
}

export interface SessionOptions {
  trialId: string;
  /** State saved from an earlier session of this trial, when resuming. */
  resume?: unknown;
  /** Extra system prompt text from the experiment or a memory plugin. */
  systemPrompt?: string;
  model?: ModelEndpoint;
}

export interface TurnOptions {
  signal: AbortSignal;
  focus: TurnFocus;
  /** Hard caps the harness passes to its agent where it can (the kernel enforces them anyway). */
  limits: { maxAgentTurns?: number; timeoutMs?: number };
}

export interface Session {
  readonly id: string;
  /**
   * Runs one turn. The iterable yields the trajectory as it happens and ends with exactly one
   * `turn.end` event. It must end promptly once `signal` aborts, with the status the kernel put
   * in the signal's reason (see `classify`).
   */
  turn(prompt: string, options: TurnOptions): AsyncIterable<TrajectoryEvent>;
  /** Serializable state that `openSession({resume})` accepts, when the harness can resume. */
  state(): unknown;
  close(): Promise<void>;
}

export interface Harness {
  readonly capabilities: HarnessCapabilities;
  /** Installs or checks the agent in the sandbox; returns what goes into lock.json (versions). */
  prepare(sandbox: Sandbox): Promise<Record<string, unknown>>;
  openSession(sandbox: Sandbox, options: SessionOptions): Promise<Session>;
}
