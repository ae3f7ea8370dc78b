import {
  bootstrapMean,
  byTask,
  countOutcomes,
  formatOutcomeCounts,
  type Interval,
  missingCell,
  mostToolCallsFailed,
  type OutcomeCounts,
  outcomeLegend,
  type PairedValue,
  pairedDifference,
  type StepStatus,
  type StoredFigure,
  stepOutcome,
  type ToolCalls,
  type TrialRecord,
} from '@longhaul/core';
import { stepFlags, tampered } from './flags.js';
import { addRegraded, type LoadedRun } from './load-run.js';
import type { RunState } from './run-state.js';
import { planKeys, type SeriesMode, seriesOf } from './series.js';
import { type StepTone, stepTone, type TrialOutcome, trialOutcome } from './trial-outcome.js';

/** One trial as the overview and the timeline show it (no step content: that comes per trial). */
export interface TrialRow {
  key: string;
  id: string;
  task: string;
  condition: string;
  repeat: number;
  status: TrialRecord['status'];
  error?: string;
  durationMs: number;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  scores: Record<string, number | boolean | null>;
  steps: {
    index: number;
    id: string;
    status: StepStatus;
    turns: number;
    durationMs: number;
    costUsd: number;
    /** The agent's tool calls in the step and the failed ones, where recorded. */
    tools?: ToolCalls;
    /** What to look at whatever the score says (most tool calls failed), a line each. */
    flags: string[];
    scores: Record<string, number | boolean | null>;
    /** How the step ended, for its colour: solved, unsolved, errored, cancelled, or scored without a solve score. */
    tone?: StepTone;
  }[];
  /** Solved x/y, errors, failed tool calls and other signals: the trial at a glance. */
  outcome?: TrialOutcome;
}

export interface ConditionRow {
  condition: string;
  trials: number;
  steps: number;
  /** Steps scored from the agent's work: what the rates are over. */
  scored: number;
  /** Steps lost to a fault, with their classes, e.g. `2 (model)`. */
  errored: number;
  errorClasses: Record<string, number>;
  /** Steps the user or the runner stopped. */
  cancelled: number;
  strict: number | null;
  iso: number | null;
  core: number | null;
  /** Scored steps where most tool calls failed; null where no step recorded its tool calls. */
  toolFailures: number | null;
  /** Steps, scored or not, with a tamper signal; null where no step has `integrity.tamper`. */
  tampered: number | null;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  durationMs: number;
}

export interface ScoreInterval extends Interval {
  condition: string;
  key: string;
}

export interface PairedInterval extends Interval {
  baseline: string;
  condition: string;
  key: string;
}

/**
 * A point of a score over steps: mean and spread (min–max) over a condition's trials, at step
 * `step`; where tasks have different numbers of steps, per task (`task`) at `x`, the share of the
 * task's steps done (step k of n at k/n), so a step number never averages different tasks.
 */
export interface SeriesPoint {
  condition: string;
  key: string;
  step: number;
  x: number;
  task?: string;
  mean: number;
  low: number;
  high: number;
  trials: number;
}

/** A score per condition as summary.json holds it (condition means and experiment-scope scores). */
export interface ConditionScore {
  condition: string;
  key: string;
  value: number | boolean | null;
}

/** A condition's trials and steps by how they ended: what each of its figures rests on. */
export interface ConditionCounts {
  condition: string;
  trials: number;
  /** Trials that ended in a fault (`error:<class>`). */
  erroredTrials: number;
  steps: number;
  /** Steps by outcome, as every aggregate counts them (`stepOutcome`). */
  scored: number;
  errored: number;
  cancelled: number;
}

export interface RunModel {
  name: string;
  dir: string;
  conditions: string[];
  tasks: string[];
  /**
   * Trial statuses and step outcomes per condition and task; a pair without a trial has no
   * statuses and is shown as missing.
   */
  matrix: {
    condition: string;
    task: string;
    statuses: Record<string, number>;
    outcomes: OutcomeCounts;
    /** The cell as shown: `1 ok, 1 error:model; 3 scored, 3 errored (model)`, or `missing`. */
    text: string;
  }[];
  conditionRows: ConditionRow[];
  /** Whether conditionRows come from summary.json (a finished run) or from the trial records. */
  fromSummary: boolean;
  /** summary.json's scores per condition; empty before a run finishes. */
  conditionScores: ConditionScore[];
  scoreKeys: string[];
  stats: ScoreInterval[];
  paired: PairedInterval[];
  series: SeriesPoint[];
  /**
   * How the series are drawn: `step` (every task has the same steps: mean over tasks and repeats
   * at each step), `progress` (tasks differ: one line per task over its share done) or `none`
   * (single-step tasks: nothing over steps to show).
   */
  seriesMode: SeriesMode;
  /** Steps per task: the most any trial of the task reached. */
  stepsPerTask: Record<string, number>;
  /**
   * The scores plotted over steps, in order: those the summary reporter's `columns` selects, the
   * main scores, the first score of each scorer that has none of those, then cost and time;
   * never one whose every value is the same, nor one given at a single step.
   */
  plotKeys: string[];
  /** The solve score: `<solveScorer>.strict` of the summary reporter (`tests.strict`). */
  solveKey: string;
  /** running, interrupted, finished or failed; with the trials planned and ended. */
  state?: RunState & { ended: number; running: number };
  /** experiment.yaml as resolved, when the run has it. */
  experiment?: Record<string, unknown>;
  /** What n scored / errored / cancelled, `–`, `missing` and `n=1` mean, printed under the tables. */
  legend: string;
  figures: StoredFigure[];
  /** The figures the report opens with, as `<reporter>.<id>` (see `Figure.lead`). */
  leads: string[];
  counts: ConditionCounts[];
  /**
   * Conditions whose steps share one turn (single-shot: every step scored after one turn), where a
   * step's time and cost are that turn's, repeated: not plotted per step.
   */
  sharedTurn: string[];
  trials: TrialRow[];
}

const numeric = (value: number | boolean | null | undefined): number | undefined =>
  typeof value === 'boolean'
    ? value
      ? 1
      : 0
    : typeof value === 'number' && Number.isFinite(value)
      ? value
      : undefined;

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Names in the order a person counts them: task2 before task10. */
export const naturalOrder = (a: string, b: string) =>
  a.localeCompare(b, 'en', { numeric: true, sensitivity: 'base' }) || byString(a, b);

function trialRow(record: TrialRecord, key: string): TrialRow {
  return {
    key,
    id: record.id,
    task: record.task,
    condition: record.condition,
    repeat: record.repeat,
    status: record.status,
    error: record.error,
    durationMs: record.durationMs,
    costUsd: record.usage.costUsd,
    inputTokens: record.usage.inputTokens,
    outputTokens: record.usage.outputTokens,
    scores: record.scores,
    steps: record.steps.map((step) => ({
      index: step.index,
      id: step.id,
      status: step.status,
      turns: step.turns,
      durationMs: step.durationMs,
      costUsd: step.usage.costUsd,
      ...(step.tools ? { tools: step.tools } : {}),
      flags: stepFlags(step),
      scores: { ...step.scores },
    })),
  };
}

const outcomesOf = (trials: TrialRow[]) =>
  countOutcomes(trials.flatMap((trial) => trial.steps.map((step) => stepOutcome(step, trial.status))));

export const scoredSteps = (trial: TrialRow) =>
  trial.steps.filter((step) => stepOutcome(step, trial.status).outcome === 'scored');

/**
 * A trial's value for a score: the mean over its scored steps, or the trial-scope score. An
 * errored or cancelled step's scores measured nothing and stay out.
 */
function trialValue(trial: TrialRow, key: string): number | undefined {
  const values = scoredSteps(trial)
    .map((step) => numeric(step.scores[key]))
    .filter((v): v is number => v !== undefined);
  if (values.length > 0) return values.reduce((sum, value) => sum + value, 0) / values.length;
  return numeric(trial.scores[key]);
}

/**
 * A condition's row while its run has no summary.json yet: rates over the steps scored so far,
 * null where no scored step has the tests scorer's value; errored and cancelled steps beside them.
 */
function conditionRow(condition: string, trials: TrialRow[]): ConditionRow {
  const steps = trials.flatMap((trial) => trial.steps);
  const scored = trials.flatMap(scoredSteps);
  const counts = outcomesOf(trials);
  const rate = (metric: string) =>
    scored.length === 0 || !scored.some((step) => `tests.${metric}` in step.scores)
      ? null
      : scored.filter((step) => numeric(step.scores[`tests.${metric}`]) === 1).length / scored.length;
  return {
    condition,
    trials: trials.length,
    steps: steps.length,
    scored: counts.scored,
    errored: counts.errored,
    errorClasses: counts.errorClasses,
    cancelled: counts.cancelled,
    strict: rate('strict'),
    iso: rate('iso'),
    core: rate('core'),
    // No call at all measured nothing: a dash, not 0.
    toolFailures: steps.some((step) => (step.tools?.calls ?? 0) > 0)
      ? scored.filter((step) => mostToolCallsFailed(step.tools)).length
      : null,
    tampered: steps.some((step) => tampered(step) !== undefined)
      ? steps.filter((step) => tampered(step)).length
      : null,
    costUsd: trials.reduce((sum, trial) => sum + trial.costUsd, 0),
    inputTokens: trials.reduce((sum, trial) => sum + trial.inputTokens, 0),
    outputTokens: trials.reduce((sum, trial) => sum + trial.outputTokens, 0),
    durationMs: trials.reduce((sum, trial) => sum + trial.durationMs, 0),
  };
}

function counts(condition: string, trials: TrialRow[]): ConditionCounts {
  const outcomes = outcomesOf(trials);
  return {
    condition,
    trials: trials.length,
    erroredTrials: trials.filter((trial) => trial.status.startsWith('error:')).length,
    steps: trials.reduce((sum, trial) => sum + trial.steps.length, 0),
    scored: outcomes.scored,
    errored: outcomes.errored,
    cancelled: outcomes.cancelled,
  };
}

/** Whether a trial's steps all come of one turn: at most one step took a turn of its own. */
const sharesTurn = (trial: TrialRow) =>
  trial.steps.length > 1 && trial.steps.filter((step) => step.turns > 0).length <= 1;

/** The figures that lead: those their reporters mark, else the run's first table. */
function leadFigures(figures: StoredFigure[]): string[] {
  const marked = figures.filter((figure) => figure.lead);
  const firstTable = figures.find((figure) => figure.kind === 'table');
  return (marked.length > 0 ? marked : firstTable ? [firstTable] : []).map(
    (figure) => `${figure.reporter}.${figure.id}`,
  );
}

/** Score keys in the order the scorers gave them (a scorer puts its main figure first). */
function scoreOrder(trials: TrialRow[]): string[] {
  const keys = new Set<string>();
  for (const trial of trials)
    for (const key of [
      ...trial.steps.flatMap((step) => Object.keys(step.scores)),
      ...Object.keys(trial.scores),
    ])
      keys.add(key);
  return [...keys];
}

/** Everything the report's pages show of one run, computed once. */
export function buildRunModel(run: LoadedRun, runIndex: number): RunModel {
  const trials = run.trials.map((trial, index) => trialRow(trial.record, `r${runIndex}-t${index}`));
  // Regraded scores sit beside the originals, as <key>@<regrade>, in every table and plot; a score
  // only a regrade gave (a scorer it added) goes under its own name.
  const original = new Map(
    trials.flatMap((trial) => trial.steps.map((step) => [step, new Set(Object.keys(step.scores))] as const)),
  );
  for (const regrade of run.regrades ?? []) {
    for (const regraded of regrade.steps) {
      const step = trials
        .find((trial) => trial.id === regraded.trialId)
        ?.steps.find((s) => s.index === regraded.index);
      if (step) addRegraded(step.scores, regraded.scores, regrade.id, original.get(step)!);
    }
  }

  const conditions = [...new Set(trials.map((trial) => trial.condition))].sort(naturalOrder);
  const tasks = [...new Set(trials.map((trial) => trial.task))].sort(naturalOrder);
  const experiment = run.experiment;
  const { solveKey, selected } = planKeys(experiment);
  const stepsPerTask: Record<string, number> = {};
  for (const trial of trials)
    stepsPerTask[trial.task] = Math.max(stepsPerTask[trial.task] ?? 0, trial.steps.length);
  for (const trial of trials) {
    trial.outcome = trialOutcome(trial, stepsPerTask[trial.task] ?? 0, solveKey);
    for (const step of trial.steps) step.tone = stepTone(step, trial.status, solveKey);
  }
  const matrix = conditions.flatMap((condition) =>
    tasks.map((task) => {
      const statuses: Record<string, number> = {};
      const own = trials.filter((t) => t.condition === condition && t.task === task);
      for (const trial of own) statuses[trial.status] = (statuses[trial.status] ?? 0) + 1;
      const outcomes = outcomesOf(own);
      const text =
        own.length === 0
          ? missingCell
          : `${Object.entries(statuses)
              .map(([status, count]) => `${count} ${status}`)
              .join(', ')}; ${formatOutcomeCounts(outcomes)}`;
      return { condition, task, statuses, outcomes, text };
    }),
  );
  const scoreKeys = [
    ...new Set(
      trials.flatMap((trial) => [
        ...trial.steps.flatMap((step) => Object.keys(step.scores)),
        ...Object.keys(trial.scores),
      ]),
    ),
  ].sort(byString);
  const trialKeys = new Set(trials.flatMap((trial) => Object.keys(trial.scores)));
  // A step key's values are per scored step (null where the step has no value: nothing measured
  // there), so a mean or a paired difference leaves such steps out and says how many it left.
  const valuesOf = (condition: string, key: string): PairedValue[] =>
    trials
      .filter((trial) => trial.condition === condition)
      .flatMap((trial): PairedValue[] =>
        trialKeys.has(key)
          ? [{ task: trial.task, repeat: trial.repeat, value: numeric(trial.scores[key]) ?? null }]
          : scoredSteps(trial).map((step) => ({
              task: trial.task,
              repeat: trial.repeat,
              step: step.index,
              value: numeric(step.scores[key]) ?? null,
            })),
      );
  const stats: ScoreInterval[] = [];
  const paired: PairedInterval[] = [];
  for (const key of scoreKeys) {
    for (const condition of conditions) {
      const own = trials.filter((trial) => trial.condition === condition);
      const means = own.flatMap((trial) => {
        const value = trialValue(trial, key);
        return value === undefined ? [] : [{ task: trial.task, repeat: trial.repeat, value }];
      });
      const interval = bootstrapMean(byTask(means));
      const values = valuesOf(condition, key);
      const skipped = values.filter((value) => value.value === null).length;
      if (interval) stats.push({ condition, key, ...interval, ...(skipped > 0 ? { skipped } : {}) });
    }
    const [baseline, ...others] = conditions;
    for (const condition of others) {
      const difference = pairedDifference(valuesOf(baseline!, key), valuesOf(condition, key));
      if (difference) paired.push({ baseline: baseline!, condition, key, ...difference });
    }
  }
  const sharedTurn = conditions.filter((condition) => {
    const own = trials.filter((trial) => trial.condition === condition && trial.steps.length > 0);
    return own.length > 0 && own.every(sharesTurn);
  });
  const {
    mode: seriesMode,
    series,
    plotKeys,
  } = seriesOf(trials, {
    conditions,
    stepsPerTask,
    sharedTurn,
    selected,
    order: scoreOrder(trials),
  });
  // A run that goes on (or was cut short) has a summary.json of an earlier session at most: its
  // live figures are those of the records so far.
  const current = run.state === undefined || run.state.status === 'finished' || run.state.status === 'failed';
  const summary = current ? run.summary : undefined;
  const fromSummary = summary !== undefined;
  const conditionRows = conditions.map((condition) => {
    const own = conditionRow(
      condition,
      trials.filter((trial) => trial.condition === condition),
    );
    const found = summary?.conditions.find((row) => row.condition === condition);
    if (!found) return own;
    // A finished run: the numbers found.json holds, so the report and the file agree.
    return {
      ...own,
      trials: found.trials,
      steps: found.steps,
      // found.json written before it counted outcomes lacks them: the records' counts stand in.
      scored: found.scored ?? own.scored,
      errored: found.errored ?? own.errored,
      errorClasses: found.errorClasses ?? own.errorClasses,
      cancelled: found.cancelled ?? own.cancelled,
      strict: found.solveRates.strict,
      iso: found.solveRates.iso,
      core: found.solveRates.core,
      costUsd: found.costUsd,
      durationMs: found.durationMs,
    };
  });
  const conditionScores: ConditionScore[] = [
    ...(summary?.conditions ?? []).flatMap((row) =>
      Object.entries(row.scores ?? {}).map(([key, value]) => ({ condition: row.condition, key, value })),
    ),
    ...(summary?.experimentScores ?? []).map(({ key, condition, value }) => ({ condition, key, value })),
  ];
  return {
    name: run.name,
    dir: run.dir,
    conditions,
    tasks,
    matrix,
    conditionRows,
    fromSummary,
    conditionScores,
    scoreKeys,
    stats,
    paired,
    series,
    seriesMode,
    stepsPerTask,
    plotKeys,
    solveKey,
    ...(experiment === undefined ? {} : { experiment }),
    ...(run.state === undefined
      ? {}
      : {
          state: {
            ...run.state,
            ended: trials.filter((trial) => trial.status !== 'running' && trial.status !== 'pending').length,
            running: trials.filter((trial) => trial.status === 'running').length,
          },
        }),
    legend: outcomeLegend,
    figures: run.figures,
    leads: leadFigures(run.figures),
    counts: conditions.map((condition) =>
      counts(
        condition,
        trials.filter((trial) => trial.condition === condition),
      ),
    ),
    sharedTurn,
    trials,
  };
}
