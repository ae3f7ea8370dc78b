import type { RunModel } from './model.js';

/**
 * Runs compared step by step: a score's value for the same task and step in each run (and the
 * same condition, where the runs share conditions). Runs of different harnesses or prompts have
 * different condition labels, so matching on the condition alone would compare nothing.
 */
export interface RunComparison {
  /** What a cell is matched on: `task × step`, or `task × step × condition`. */
  keyedBy: string;
  /**
   * Per score: the mean over the cells every run has a value in, in each run, and the change;
   * `skipped` counts the cells left out because a run had no value there (nothing measured).
   */
  overall: { key: string; cells: number; skipped: number; values: number[]; delta: number }[];
  /** Per score and cell: each run's value (null where a run has none) and the change. */
  cells: {
    key: string;
    task: string;
    step: string;
    condition?: string;
    values: (number | null)[];
    delta: number | null;
  }[];
}

const numeric = (value: number | boolean | null | undefined): number | undefined =>
  typeof value === 'boolean'
    ? Number(value)
    : typeof value === 'number' && Number.isFinite(value)
      ? value
      : undefined;

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** The conditions every run has; none when any run has a condition the others lack entirely. */
function sharedConditions(runs: RunModel[]): Set<string> | undefined {
  const [first, ...others] = runs;
  const shared = new Set(
    first!.conditions.filter((condition) => others.every((run) => run.conditions.includes(condition))),
  );
  return shared.size > 0 ? shared : undefined;
}

export function compareRuns(runs: RunModel[]): RunComparison | undefined {
  if (runs.length < 2) return undefined;
  const shared = sharedConditions(runs);
  const cellKey = (task: string, step: string, condition: string) =>
    shared ? `${task}\u0000${step}\u0000${condition}` : `${task}\u0000${step}`;
  // Per run: cell → score → the values of its trials (repeats, and conditions when unmatched).
  const perRun = runs.map((run) => {
    const cells = new Map<string, Map<string, number[]>>();
    for (const trial of run.trials) {
      if (shared && !shared.has(trial.condition)) continue;
      for (const step of trial.steps) {
        const cell = cellKey(trial.task, `${step.index + 1}. ${step.id}`, trial.condition);
        const scores = cells.get(cell) ?? new Map<string, number[]>();
        cells.set(cell, scores);
        const add = (key: string, value: number | undefined) => {
          if (value !== undefined) scores.set(key, [...(scores.get(key) ?? []), value]);
        };
        for (const [key, value] of Object.entries(step.scores)) add(key, numeric(value));
        add('cost.usd', step.costUsd);
      }
    }
    return cells;
  });
  const cellNames = [...new Set(perRun.flatMap((cells) => [...cells.keys()]))].sort();
  const keys = [
    ...new Set(perRun.flatMap((cells) => [...cells.values()].flatMap((s) => [...s.keys()]))),
  ].sort();
  const cells: RunComparison['cells'] = [];
  const overall: RunComparison['overall'] = [];
  for (const key of keys) {
    const paired: number[][] = [];
    let skipped = 0;
    for (const name of cellNames) {
      const values = perRun.map((cellsOfRun) => {
        const found = cellsOfRun.get(name)?.get(key);
        return found && found.length > 0 ? mean(found) : null;
      });
      if (values.every((value) => value === null)) continue;
      const [task, step, condition] = name.split('\u0000') as [string, string, string | undefined];
      const first = values[0];
      const last = values.at(-1);
      cells.push({
        key,
        task,
        step,
        ...(condition === undefined ? {} : { condition }),
        values,
        delta: first == null || last == null ? null : last - first,
      });
      if (values.every((value) => value !== null)) paired.push(values as number[]);
      else skipped += 1;
    }
    if (paired.length === 0) continue;
    const values = runs.map((_, r) => mean(paired.map((row) => row[r]!)));
    overall.push({ key, cells: paired.length, skipped, values, delta: values.at(-1)! - values[0]! });
  }
  return { keyedBy: shared ? 'task × step × condition' : 'task × step', overall, cells };
}
