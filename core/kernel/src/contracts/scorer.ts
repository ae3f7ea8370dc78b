import type { Figure } from './figure.js';
import type { ReportContext } from './reporter.js';
import type { Sandbox, SnapshotRef, SnapshotStore } from './sandbox.js';
import type { StepStatus } from './status.js';
import type { Step, Task } from './task.js';
import type { TrajectoryEvent } from './trajectory.js';
import type { TrialRecord, TrialSpec } from './trial.js';

export type ScoreValue = number | boolean | null;

/** A named value; stored as `<scorer>.<metric>`. `detail` goes to the step's scores.json only. */
export interface Score {
  metric: string;
  value: ScoreValue;
  detail?: unknown;
  /**
   * What a feedback cycle may tell the agent about this score (e.g. which cases failed), written
   * so that it does not leak hidden test content the benchmark keeps secret.
   */
  feedback?: string;
}

export interface StepScoreContext {
  task: Task;
  step: Step;
  trial: TrialSpec;
  /** The workspace after the step. */
  snapshot: SnapshotRef;
  /** The workspace after the previous scored step (or the seed), for churn and diffs. */
  previous?: SnapshotRef;
  /**
   * The workspace as the step's turn began, after whatever the runner changed first (a reset to
   * the reference, hidden files): `start` → `snapshot` is the agent's own doing in the step. For
   * a turn that closes several steps, the first of them starts here and the others at `snapshot`.
   * Absent where not known (a run from before steps kept it): then `previous` is the best guess.
   */
  start?: SnapshotRef;
  snapshots: SnapshotStore;
  /** A fresh sandbox over the given snapshot, away from the agent's; the scorer closes it. */
  openSandbox(from: SnapshotRef): Promise<Sandbox>;
  /** Directory for raw outputs (test logs, JSONL); the step's `tests/` in the run store. */
  outDir: string;
  /** Status of the agent's turn(s) for this step. */
  status: StepStatus;
  signal: AbortSignal;
}

export interface TrialScoreContext {
  trial: TrialSpec;
  record: TrialRecord;
  /** The whole trajectory of the trial, in order. */
  events: readonly TrajectoryEvent[];
  snapshots: SnapshotStore;
  trialDir: string;
}

export interface ExperimentScoreContext {
  trials: { spec: TrialSpec; record: TrialRecord }[];
}

/** A score for a condition (or the whole experiment when `condition` is absent). */
export interface ConditionScore extends Score {
  condition?: string;
}

/** What a scorer's `figures` are given: the run as reporters see it, and the scorer's own label. */
export interface ScorerReportContext extends ReportContext {
  /** The label the experiment gives this scorer: its scores are keyed `<label>.<metric>`. */
  label: string;
}

/**
 * A scorer's contribution to `longhaul report` and `longhaul view`, whatever its scope: the
 * benchmark's figures made from its scores (IDE-Bench's pass@k with Wilson intervals), so they
 * come with the scorer and need no reporter. Called when the run ends; stored in figures.json.
 */
export interface ScorerFigures {
  figures?(ctx: ScorerReportContext): Figure[] | Promise<Figure[]>;
}

export type Scorer = ScorerFigures &
  (
    | { scope: 'step'; version: string; score(ctx: StepScoreContext): Promise<Score[]> }
    | { scope: 'trial'; version: string; score(ctx: TrialScoreContext): Promise<Score[]> }
    | { scope: 'experiment'; version: string; score(ctx: ExperimentScoreContext): Promise<ConditionScore[]> }
  );
