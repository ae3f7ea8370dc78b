import type { Status, StepStatus } from './status.js';
import type { Task } from './task.js';
import type { Usage } from './usage.js';

/** A plugin chosen in an experiment, with its options already validated. */
export interface PluginRef {
  id: string;
  options: Record<string, unknown>;
  /** How conditions name it; defaults to the id (or id#n when one id appears with several options). */
  label: string;
}

/** One cell of the experiment's matrix, minus the task. */
export interface Condition {
  /** `harness/script/memory[/environment]` labels joined, stable across runs. */
  key: string;
  harness: PluginRef;
  environment: PluginRef;
  script: PluginRef;
  memory: PluginRef;
  /** Model name given to the harness, when the experiment has a `models` axis. */
  model?: string;
}

export interface Limits {
  /** Wall clock per turn. */
  turnMs: number;
  /** Wall clock per step, over all its turns. */
  stepMs: number;
  /** Turns per step, counting feedback cycles. */
  turnsPerStep: number;
  /** Spend per trial, USD; 0 means no cap. */
  trialUsd: number;
  /** What the trial does after a step ends in a fault or a limit. */
  onError: 'stop' | 'continue';
}

/**
 * Everything a worker needs to run a trial: serializable, self-contained, no callbacks. The local
 * executor runs it in-process; a queue executor ships it to another machine as JSON.
 */
export interface TrialSpec {
  id: string;
  runId: string;
  runDir: string;
  task: Task;
  condition: Condition;
  repeat: number;
  scorers: PluginRef[];
  limits: Limits;
  /** Directories/packages of extra plugins named in the experiment, resolved to absolute paths. */
  plugins: string[];
  /** Gateway configuration from the experiment's `models:`; opaque to the kernel. */
  models?: unknown;
}

/**
 * The agent's tool calls during a step's turns, as its trajectory shows them: how many it made and
 * how many failed (a `tool.result` with `isError`: invalid arguments, an unknown tool, a refusal,
 * a command the tool reports as failed). Counted by the kernel for every harness.
 */
export interface ToolCalls {
  calls: number;
  failed: number;
}

/** A failed tool call, for scores.json: which tool and the first line of what it answered. */
export interface ToolFailure {
  tool: string;
  error: string;
}

export interface StepRecord {
  index: number;
  id: string;
  status: StepStatus;
  turns: number;
  startedAt?: string;
  endedAt?: string;
  durationMs: number;
  usage: Usage;
  /**
   * The agent's own account of its usage (its usage events or turn result) where the gateway
   * metered the turns: kept for comparison only. `usage` (the gateway's metering) is what limits,
   * the live view and the reports use.
   */
  agentUsage?: Usage;
  snapshot?: string;
  /** The step's tool calls and failed ones; absent in records written before steps counted them. */
  tools?: ToolCalls;
  scores: Record<string, number | boolean | null>;
}

/** trial.json */
export interface TrialRecord {
  id: string;
  task: string;
  condition: string;
  repeat: number;
  status: Status | 'running' | 'pending';
  startedAt?: string;
  endedAt?: string;
  durationMs: number;
  usage: Usage;
  /**
   * The agent's own account of its usage (its usage events or turn result) where the gateway
   * metered the turns: kept for comparison only. `usage` (the gateway's metering) is what limits,
   * the live view and the reports use.
   */
  agentUsage?: Usage;
  steps: StepRecord[];
  scores: Record<string, number | boolean | null>;
  error?: string;
}
