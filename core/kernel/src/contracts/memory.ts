import type { HarnessCapabilities } from './harness.js';
import type { Sandbox } from './sandbox.js';
import type { TurnPlan } from './script.js';
import type { Task } from './task.js';
import type { TrajectoryEvent, TurnResult } from './trajectory.js';

export interface MemoryContext {
  task: Task;
  plan: TurnPlan;
  /** 0-based index of the planned turn. */
  turnIndex: number;
  sandbox: Sandbox;
  capabilities: HarnessCapabilities;
  /** A directory in the run store that belongs to this trial's memory, kept across resumes. */
  stateDir: string;
  /** Whether the session this turn runs in is new. */
  freshSession: boolean;
  /** Trajectory of the current session so far (for context-size estimates). */
  sessionEvents: readonly TrajectoryEvent[];
}

export interface MemoryPatch {
  /** Text placed before the planned prompt. */
  prefix?: string;
  /** Text placed after it. */
  suffix?: string;
  /** Files written into the workspace before the turn (path relative to the workspace). */
  files?: Record<string, string>;
  /** Start a fresh session for this turn even if the plan continues the current one. */
  restartSession?: boolean;
}

export interface Memory {
  beforeTurn(ctx: MemoryContext): Promise<MemoryPatch>;
  afterTurn(ctx: MemoryContext, result: TurnResult, events: readonly TrajectoryEvent[]): Promise<void>;
  /** Files the memory keeps in the workspace that scorers should not count as the agent's code. */
  readonly ownedFiles?: string[];
}
