import { stepOutcome } from '@longhaul/core';
import type { SeriesPoint, TrialRow } from './model.js';

export type SeriesMode = 'step' | 'progress' | 'none';

/** Scores a reader looks at first; the others are in the tables and in each step. */
export const mainScores = [
  /\.strict$/,
  /\.pass_rate$/,
  /\.erosion$/,
  /\.verbosity$/,
  /\.clone_ratio$/,
  /\.if50$/,
  /\.mcf$/,
  /\.dir$/,
  /health|debt|cognitive/,
];

/** Where a score ranks among the main scores (those that are none come last). */
export const mainRank = (key: string) => {
  const found = mainScores.findIndex((pattern) => pattern.test(key));
  return found < 0 ? mainScores.length : found;
};

const numeric = (value: number | boolean | null | undefined): number | undefined =>
  typeof value === 'boolean'
    ? Number(value)
    : typeof value === 'number' && Number.isFinite(value)
      ? value
      : undefined;

const summaryOptions = (experiment: Record<string, unknown> | undefined): Record<string, unknown> => {
  const reporters = Array.isArray(experiment?.reporters) ? experiment.reporters : [];
  const summary = reporters.find(
    (ref): ref is { id: string; options?: Record<string, unknown> } =>
      typeof ref === 'object' && ref !== null && (ref as { id?: unknown }).id === 'summary',
  );
  return summary?.options ?? {};
};

/**
 * What the experiment says of its scores: the solve score (`<solveScorer>.strict` of the summary
 * reporter, `tests.strict` by default) and the scores its `columns` option selects.
 */
export function planKeys(experiment: Record<string, unknown> | undefined): {
  solveKey: string;
  selected: string[];
} {
  const options = summaryOptions(experiment);
  const solveScorer = typeof options.solveScorer === 'string' ? options.solveScorer : 'tests';
  const columns = Array.isArray(options.columns) ? options.columns.filter((c) => typeof c === 'string') : [];
  return { solveKey: `${solveScorer}.strict`, selected: columns };
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

function point(
  target: SeriesPoint[],
  base: Omit<SeriesPoint, 'mean' | 'low' | 'high' | 'trials'>,
  values: number[],
) {
  if (values.length === 0) return;
  target.push({
    ...base,
    mean: mean(values),
    low: Math.min(...values),
    high: Math.max(...values),
    trials: values.length,
  });
}

/**
 * The run's scores over steps. Tasks with the same number of steps are averaged at each step;
 * tasks of different lengths get a line each, over the share of the task done, since a step
 * number averaged over them would mix tasks (step 5 of a five-step task with nothing from the
 * three-step ones). Single-step tasks have nothing over steps to show.
 */
export function seriesOf(
  trials: TrialRow[],
  plan: {
    conditions: string[];
    stepsPerTask: Record<string, number>;
    /** Conditions whose steps share one turn: no per-step cost or time. */
    sharedTurn: string[];
    /** Scores the experiment selects (the summary reporter's `columns`). */
    selected: string[];
    /** Every score key in the order the scorers gave them. */
    order: string[];
  },
): { mode: SeriesMode; series: SeriesPoint[]; plotKeys: string[] } {
  const lengths = new Set(Object.values(plan.stepsPerTask));
  const mode: SeriesMode = Math.max(0, ...lengths) <= 1 ? 'none' : lengths.size === 1 ? 'step' : 'progress';
  if (mode === 'none') return { mode, series: [], plotKeys: [] };
  const series: SeriesPoint[] = [];
  for (const condition of plan.conditions) {
    const own = trials.filter((trial) => trial.condition === condition);
    // In step mode one group of all the condition's trials; in progress mode one per task.
    const groups =
      mode === 'step'
        ? [{ task: undefined, trials: own }]
        : [...new Set(own.map((trial) => trial.task))].map((task) => ({
            task,
            trials: own.filter((trial) => trial.task === task),
          }));
    for (const group of groups) {
      const indexes = [
        ...new Set(group.trials.flatMap((trial) => trial.steps.map((step) => step.index))),
      ].sort((a, b) => a - b);
      for (const index of indexes) {
        const steps = group.trials.flatMap((trial) => trial.steps.filter((step) => step.index === index));
        const total = group.task === undefined ? 0 : (plan.stepsPerTask[group.task] ?? 1);
        const base = {
          condition,
          step: index + 1,
          x: group.task === undefined ? index + 1 : (index + 1) / total,
          ...(group.task === undefined ? {} : { task: group.task }),
        };
        // Scores only from scored steps; cost and time from every step, since a fault costs too.
        const scored = group.trials.flatMap((trial) =>
          trial.steps.filter(
            (step) => step.index === index && stepOutcome(step, trial.status).outcome === 'scored',
          ),
        );
        for (const key of new Set(scored.flatMap((step) => Object.keys(step.scores))))
          point(
            series,
            { ...base, key },
            scored.map((step) => numeric(step.scores[key])).filter((v): v is number => v !== undefined),
          );
        if (plan.sharedTurn.includes(condition)) continue;
        point(
          series,
          { ...base, key: 'cost.usd' },
          steps.map((step) => step.costUsd),
        );
        point(
          series,
          { ...base, key: 'time.seconds' },
          steps.map((step) => step.durationMs / 1000),
        );
      }
    }
  }
  return { mode, series, plotKeys: plotKeys(series, plan.selected, plan.order) };
}

/** At most this many scores are plotted over steps, besides cost and time. */
const plotLimit = 12;

/**
 * The scores worth a plot: what the experiment selects, the main scores, and the first score of
 * each scorer that has neither (so a scorer of one's own gets one), then cost and time; none whose
 * values are all the same (a plot of a constant shows nothing, however its axis is labelled), and
 * none given at a single step.
 */
function plotKeys(series: SeriesPoint[], selected: string[], order: string[]): string[] {
  const varies = (key: string) => {
    const values = series.filter((p) => p.key === key).flatMap((p) => [p.mean, p.low, p.high]);
    return values.length > 0 && values.some((value) => Math.abs(value - values[0]!) > 1e-12);
  };
  // A score given at one step only (a trial-scope score, at the trial's last step) is no curve.
  const overSteps = (key: string) => new Set(series.filter((p) => p.key === key).map((p) => p.x)).size > 1;
  const present = new Set(series.map((p) => p.key));
  const scorerOf = (key: string) => key.split('.')[0]!;
  const chosen: string[] = [];
  const add = (key: string) => {
    if (!chosen.includes(key) && present.has(key) && key !== 'cost.usd' && key !== 'time.seconds')
      chosen.push(key);
  };
  for (const key of selected) add(key);
  const keys = order.filter((key) => present.has(key));
  for (const key of [...keys].sort((a, b) => mainRank(a) - mainRank(b)))
    if (mainRank(key) < mainScores.length) add(key);
  for (const key of keys) if (!chosen.some((other) => scorerOf(other) === scorerOf(key))) add(key);
  const plotted = (key: string) => varies(key) && overSteps(key);
  return [...chosen.filter(plotted).slice(0, plotLimit), ...['cost.usd', 'time.seconds'].filter(plotted)];
}
