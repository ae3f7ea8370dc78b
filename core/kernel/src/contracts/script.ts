import type { Task } from './task.js';

/** What happens to the workspace before a turn. */
export type WorkspaceAction =
  | { action: 'carry' }
  /** Make the workspace equal to the reference after step `afterStep` (-1: the task's seed). */
  | { action: 'reset'; afterStep: number };

export interface TurnPlan {
  prompt: string;
  /** Continue the current session, or start a fresh one. */
  session: 'continue' | 'fresh';
  workspace: WorkspaceAction;
  /** Indexes of the steps this turn works on. */
  steps: number[];
  /** Indexes of the steps scored after this turn (a subset of `steps`; empty: nothing closes). */
  scores: number[];
  /** Extra turns allowed when scores show failures; each gets the failures as feedback. */
  feedbackCycles: number;
}

/** A pure function from a task to the turns that run it. */
export interface Script {
  plan(task: Task): TurnPlan[];
}
