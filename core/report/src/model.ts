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
import { type LoadedRun, regradedKey } from './load-run.js';

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
  }[];
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

/** A point of a score over steps: mean and spread (min–max) over a condition's trials. */
export interface SeriesPoint {
  condition: string;
  key: string;
  step: number;
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

const scoredSteps = (trial: TrialRow) =>
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

/** Everything the report's pages show of one run, computed once. */
export function buildRunModel(run: LoadedRun, runIndex: number): RunModel {
  const trials = run.trials.map((trial, index) => trialRow(trial.record, `r${runIndex}-t${index}`));
  // Regraded scores sit beside the originals, as <key>@<regrade>, in every table and plot.
  for (const regrade of run.regrades ?? []) {
    for (const regraded of regrade.steps) {
      const step = trials
        .find((trial) => trial.id === regraded.trialId)
        ?.steps.find((s) => s.index === regraded.index);
      if (!step) continue;
      for (const [key, value] of Object.entries(regraded.scores))
        step.scores[regradedKey(key, regrade.id)] = value;
    }
  }
  const conditions = [...new Set(trials.map((trial) => trial.condition))].sort(byString);
  const tasks = [...new Set(trials.map((trial) => trial.task))].sort(byString);
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
  const series: SeriesPoint[] = [];
  for (const condition of conditions) {
    const own = trials.filter((trial) => trial.condition === condition);
    const stepIndexes = [...new Set(own.flatMap((trial) => trial.steps.map((step) => step.index)))].sort(
      (a, b) => a - b,
    );
    const perStep = (index: number) =>
      own.flatMap((trial) => trial.steps.filter((step) => step.index === index));
    const point = (key: string, step: number, values: number[]) => {
      if (values.length === 0) return;
      series.push({
        condition,
        key,
        step: step + 1,
        mean: values.reduce((sum, value) => sum + value, 0) / values.length,
        low: Math.min(...values),
        high: Math.max(...values),
        trials: values.length,
      });
    };
    for (const index of stepIndexes) {
      const steps = perStep(index);
      // Scores only from scored steps; cost and time from every step, since a fault costs too.
      const scored = own.flatMap((trial) => scoredSteps(trial).filter((step) => step.index === index));
      for (const key of new Set(scored.flatMap((step) => Object.keys(step.scores))))
        point(
          key,
          index,
          scored.map((step) => numeric(step.scores[key])).filter((v): v is number => v !== undefined),
        );
      if (sharedTurn.includes(condition)) continue;
      point(
        'cost.usd',
        index,
        steps.map((step) => step.costUsd),
      );
      point(
        'time.seconds',
        index,
        steps.map((step) => step.durationMs / 1000),
      );
    }
  }
  const fromSummary = run.summary !== undefined;
  const conditionRows = conditions.map((condition) => {
    const own = conditionRow(
      condition,
      trials.filter((trial) => trial.condition === condition),
    );
    const summary = run.summary?.conditions.find((row) => row.condition === condition);
    if (!summary) return own;
    // A finished run: the numbers summary.json holds, so the report and the file agree.
    return {
      ...own,
      trials: summary.trials,
      steps: summary.steps,
      // summary.json written before it counted outcomes lacks them: the records' counts stand in.
      scored: summary.scored ?? own.scored,
      errored: summary.errored ?? own.errored,
      errorClasses: summary.errorClasses ?? own.errorClasses,
      cancelled: summary.cancelled ?? own.cancelled,
      strict: summary.solveRates.strict,
      iso: summary.solveRates.iso,
      core: summary.solveRates.core,
      costUsd: summary.costUsd,
      durationMs: summary.durationMs,
    };
  });
  const conditionScores: ConditionScore[] = [
    ...(run.summary?.conditions ?? []).flatMap((row) =>
      Object.entries(row.scores ?? {}).map(([key, value]) => ({ condition: row.condition, key, value })),
    ),
    ...(run.summary?.experimentScores ?? []).map(({ key, condition, value }) => ({ condition, key, value })),
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
