import { type Interval, type PairedValue, pairedDifference } from '@longhaul/core';
import { naturalOrder, type RunModel, scoredSteps, type TrialRow } from './model.js';
import { mainRank } from './series.js';
import { whatChanged } from './what-changed.js';

/**
 * Runs compared condition by condition, never pooled: each condition of one run is matched with
 * one condition of every other run, and a score is compared over the task × repeat × step cells
 * both measured, with a paired bootstrap interval over tasks and repeats.
 */
export interface RunComparison {
  /** The runs' names, in the order given. */
  runs: string[];
  /** What differs between the runs' experiments, one line each (`harness[1].options.model: a → b`). */
  changed: string[];
  /** How conditions were matched: by label, or by the parts of the label left when the parts that differ between runs are put aside. */
  matchedBy: string;
  /** The matched conditions: per run, its condition in the match. */
  groups: { label: string; conditions: string[] }[];
  /** Conditions of a run that no condition of another run matches: not compared. */
  unmatched: { run: string; condition: string }[];
  /**
   * Per matched condition and score: each run's mean over the cells every run measured, and each
   * later run's paired difference against the first (null for the first run, or without pairs).
   * `skipped` counts the cells left out because a run measured nothing there.
   */
  rows: {
    group: string;
    key: string;
    cells: number;
    skipped: number;
    values: number[];
    deltas: (Interval | null)[];
  }[];
  /** Per matched condition, score, task and step: each run's mean over repeats (null where none). */
  cells: {
    group: string;
    key: string;
    task: string;
    step: string;
    values: (number | null)[];
    delta: number | null;
  }[];
}

const numeric = (value: number | boolean | null | undefined): number | null =>
  typeof value === 'boolean'
    ? Number(value)
    : typeof value === 'number' && Number.isFinite(value)
      ? value
      : null;

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * Pairs each run's conditions with the other runs': by label where every run has the label;
 * otherwise by what is left of the labels once the parts that are the same within each run but
 * differ between runs (the harness two runs were made to compare) are put aside. Runs of one
 * condition each are matched whole.
 */
export function matchConditions(runs: RunModel[]): Pick<RunComparison, 'matchedBy' | 'groups' | 'unmatched'> {
  const [first, ...others] = runs as [RunModel, ...RunModel[]];
  const shared = first.conditions.filter((condition) =>
    others.every((run) => run.conditions.includes(condition)),
  );
  if (shared.length > 0) {
    return {
      matchedBy: 'condition',
      groups: shared.map((condition) => ({ label: condition, conditions: runs.map(() => condition) })),
      unmatched: runs.flatMap((run) =>
        run.conditions.filter((c) => !shared.includes(c)).map((condition) => ({ run: run.name, condition })),
      ),
    };
  }
  const parts = (condition: string) => condition.split('/');
  const width = Math.max(...runs.flatMap((run) => run.conditions.map((c) => parts(c).length)));
  // A part is set aside when each run has one value of it and the runs' values differ.
  const aside = new Set<number>();
  for (let p = 0; p < width; p++) {
    const perRun = runs.map((run) => new Set(run.conditions.map((c) => parts(c)[p] ?? '')));
    if (perRun.every((values) => values.size === 1) && new Set(perRun.map((v) => [...v][0])).size > 1)
      aside.add(p);
  }
  const rest = (condition: string) =>
    parts(condition)
      .filter((_, p) => !aside.has(p))
      .join('/');
  const keyed = runs.map((run) => new Map(run.conditions.map((c) => [rest(c), c])));
  const usable = keyed.every((map, r) => map.size === runs[r]!.conditions.length);
  const keys = usable ? [...keyed[0]!.keys()].filter((key) => keyed.every((map) => map.has(key))) : [];
  const groups = keys.map((key) => {
    const conditions = keyed.map((map) => map.get(key)!);
    return { label: conditions.join(' → '), conditions };
  });
  const matched = new Set(groups.flatMap((group) => group.conditions.map((c, r) => `${r}\u0000${c}`)));
  const names = [...aside].map((p) => ['harness', 'script', 'memory', 'environment'][p] ?? `part ${p + 1}`);
  return {
    matchedBy:
      groups.length === 0
        ? 'nothing: no condition of one run matches one of the other'
        : `condition, ${names.join(' and ')} set aside (it differs between the runs)`,
    groups,
    unmatched: runs.flatMap((run, r) =>
      run.conditions
        .filter((condition) => !matched.has(`${r}\u0000${condition}`))
        .map((condition) => ({ run: run.name, condition })),
    ),
  };
}

/** A condition's values of a score: per scored step (cost per step), or per trial for a trial score. */
function valuesOf(trials: TrialRow[], key: string): PairedValue[] {
  return trials.flatMap((trial): PairedValue[] => {
    if (key === 'cost.usd')
      return trial.steps.map((step) => ({
        task: trial.task,
        repeat: trial.repeat,
        step: step.index,
        value: step.costUsd,
      }));
    if (key in trial.scores && !trial.steps.some((step) => key in step.scores))
      return [{ task: trial.task, repeat: trial.repeat, value: numeric(trial.scores[key]) }];
    return scoredSteps(trial)
      .filter((step) => key in step.scores)
      .map((step) => ({
        task: trial.task,
        repeat: trial.repeat,
        step: step.index,
        value: numeric(step.scores[key]),
      }));
  });
}

const cellId = (value: PairedValue) => `${value.task}\u0000${value.repeat}\u0000${value.step ?? ''}`;

export function compareRuns(runs: RunModel[]): RunComparison | undefined {
  if (runs.length < 2) return undefined;
  const { matchedBy, groups, unmatched } = matchConditions(runs);
  const rows: RunComparison['rows'] = [];
  const cells: RunComparison['cells'] = [];
  for (const group of groups) {
    const trialsOf = runs.map((run, r) =>
      run.trials.filter((trial) => trial.condition === group.conditions[r]),
    );
    const keys = [
      ...new Set(
        trialsOf.flatMap((trials) =>
          trials.flatMap((trial) => [
            ...trial.steps.flatMap((step) => Object.keys(step.scores)),
            ...Object.keys(trial.scores),
          ]),
        ),
      ),
      'cost.usd',
    ];
    for (const key of keys) {
      const perRun = trialsOf.map((trials) => valuesOf(trials, key));
      const maps = perRun.map((values) => new Map(values.map((value) => [cellId(value), value.value])));
      const ids = [...new Set(maps.flatMap((map) => [...map.keys()]))];
      const paired = ids.filter((id) => maps.every((map) => map.get(id) != null));
      if (paired.length > 0) {
        rows.push({
          group: group.label,
          key,
          cells: paired.length,
          skipped: ids.length - paired.length,
          values: maps.map((map) => mean(paired.map((id) => map.get(id)!))),
          deltas: perRun.map((values, r) => (r === 0 ? null : pairedDifference(perRun[0]!, values))),
        });
      }
      // Per task and step: the mean over repeats in each run.
      const byCell = new Map<string, { task: string; step: string; perRun: number[][] }>();
      perRun.forEach((values, r) => {
        for (const value of values) {
          if (value.value === null) continue;
          const step = trialsOf[r]!.flatMap((t) => t.steps).find((s) => s.index === value.step);
          const stepName =
            value.step === undefined ? 'trial' : `${Number(value.step) + 1}. ${step?.id ?? ''}`;
          const id = `${value.task}\u0000${stepName}`;
          const cell = byCell.get(id) ?? { task: value.task, step: stepName, perRun: runs.map(() => []) };
          byCell.set(id, cell);
          cell.perRun[r]!.push(value.value);
        }
      });
      const sorted = [...byCell.values()].sort(
        (a, b) => naturalOrder(a.task, b.task) || naturalOrder(a.step, b.step),
      );
      for (const cell of sorted) {
        const values = cell.perRun.map((list) => (list.length > 0 ? mean(list) : null));
        const first = values[0];
        const last = values.at(-1);
        cells.push({
          group: group.label,
          key,
          task: cell.task,
          step: cell.step,
          values,
          delta: first == null || last == null ? null : last - first,
        });
      }
    }
  }
  // The main scores of each condition first, the rest by name: what a reader looks for leads.
  const order = groups.map((group) => group.label);
  rows.sort(
    (a, b) =>
      order.indexOf(a.group) - order.indexOf(b.group) ||
      mainRank(a.key) - mainRank(b.key) ||
      naturalOrder(a.key, b.key),
  );
  return {
    runs: runs.map((run) => run.name),
    changed: whatChanged(runs),
    matchedBy,
    groups,
    unmatched,
    rows,
    cells,
  };
}
