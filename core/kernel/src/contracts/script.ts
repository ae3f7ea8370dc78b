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
  /**
   * `keep` (the default): the turn runs in the sandbox of the turn before. `fresh`: before the
   * turn the workspace moves into a new sandbox of the same environment and nothing else carries
   * over (installed packages, processes, files outside the workspace or excluded from snapshots),
   * as SlopCodeBench gives each checkpoint a new container. A fresh sandbox needs a fresh session.
   * The first turn a trial runs always gets a sandbox of its own.
   */
  sandbox?: 'keep' | 'fresh';
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
