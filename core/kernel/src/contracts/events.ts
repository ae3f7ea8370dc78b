import type { Status, StepStatus } from './status.js';
import type { TrajectoryEvent } from './trajectory.js';
import type { Usage } from './usage.js';

/** Run events: what events.jsonl holds and reporters and progress views consume. */
export type RunEvent =
  | {
      type: 'run.start';
      runId: string;
      runDir: string;
      trials: number;
      resumed: boolean;
      /** Trials already complete when this attempt started (a resumed run's); absent in older runs. */
      complete?: number;
    }
  | { type: 'run.end'; runId: string; status: 'ok' | 'cancelled' | 'error' }
  | { type: 'trial.start'; trialId: string; task: string; condition: string; steps: number }
  | { type: 'trial.end'; trialId: string; status: Status; usage: Usage; durationMs: number }
  | { type: 'step.start'; trialId: string; step: number; stepId: string }
  | {
      type: 'step.end';
      trialId: string;
      step: number;
      stepId: string;
      status: StepStatus;
      scores: Record<string, number | boolean | null>;
    }
  | {
      type: 'turn.start';
      trialId: string;
      turn: number;
      steps: number[];
      cycle: number;
      /** When the wall clock of the turn's steps runs out (ISO 8601); absent in older runs. */
      deadline?: string;
    }
  /**
   * What a trial does between turns: opening its sandbox, or scoring its steps. A turn.start
   * marks the agent's part.
   */
  | { type: 'trial.phase'; trialId: string; phase: 'sandbox' | 'scoring' }
  /** The trial's usage so far as trial.json counts it (the gateway's metering), while turns run. */
  | { type: 'trial.usage'; trialId: string; usage: Usage }
  | { type: 'trajectory'; trialId: string; turn: number; event: TrajectoryEvent }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string; trialId?: string };

export type StampedRunEvent = RunEvent & { ts: string };
