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
  /**
   * A fresh sandbox over the given snapshot, away from the agent's; the scorer closes it. The
   * workspace there is the agent's, as evidence: see `Scorer` for what a judge may take from it.
   */
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

/**
 * Scores a step, a trial or an experiment.
 *
 * **The judge's world is its own.** A scorer that judges what the agent left (runs hidden tests,
 * compares a program's output) reads the snapshot as evidence, never as configuration:
 *
 * - Hidden tests, their configuration, their helpers and their results live where the agent could
 *   never write: on the host, or in the sandbox's judge area (`Sandbox.judge`), never at a path of
 *   the workspace that a snapshot could already hold. A result file is read only from where the
 *   judge's own run wrote it, after that run.
 * - Nothing of the agent's tree is imported, loaded or executed by the judge but the program under
 *   test, run the way the benchmark runs it: no test runner configuration (pytest.ini,
 *   pyproject.toml, setup.cfg, tox.ini), runner hook (conftest.py), plugin, startup file
 *   (sitecustomize.py, usercustomize.py, `.pth`) or module shadowing the runner's. Where a
 *   benchmark's tests legitimately live in the repository (SWE-STEPS, IDE-Bench), the test files
 *   and their configuration are put back to the gold version before the run, and the agent's
 *   others removed, as SWE-bench does.
 * - Files the agent left must not stand in for the program's work: an output file a case expects
 *   is removed before the run, an input file is written over whatever is in its way.
 * - A hack must score 0, not a fault: a run the agent's tree broke is a failed step (a fault leaves
 *   the step out of the denominators, which rewards the agent).
 * - Where the tests import the program into their own process (SWE-STEPS, IDE-Bench), the program
 *   can rewrite the runner from inside; a judge guards what it can (a canary test that must fail)
 *   and says what remains. An object equal to anything would pass such tests' comparisons: the
 *   judge guards them (`guardComparisons` of `@longhaul/metrics` makes a comparison with such
 *   an object of the program's fail), and the `integrity` scorer's tamper signals flag the code
 *   that makes one (`integrity.equality`).
 *
 * `@longhaul/testkit`'s red-team suite (`describeJudgeIntegrity`) tries known ways to fake a pass
 * on a judge in every shipped environment; a scorer that judges a workspace runs it.
 */
export type Scorer = ScorerFigures &
  (
    | { scope: 'step'; version: string; score(ctx: StepScoreContext): Promise<Score[]> }
    | { scope: 'trial'; version: string; score(ctx: TrialScoreContext): Promise<Score[]> }
    | { scope: 'experiment'; version: string; score(ctx: ExperimentScoreContext): Promise<ConditionScore[]> }
  );
