/**
 * Bootstrap confidence intervals for the report: a condition's mean over tasks and repeats, and
 * the paired difference of two conditions (same task, same repeat). Tasks are the unit resampled
 * first and repeats within each drawn task second, so a benchmark with few tasks and many repeats
 * does not look more certain than it is. A fixed seed makes every report print the same interval.
 */

export interface Interval {
  mean: number;
  /** Bounds of the interval; null when fewer than two values stand behind the mean. */
  low: number | null;
  high: number | null;
  /** Values the mean is over (trials, or pairs of trials). */
  n: number;
  /**
   * Steps left out because they had no value (nothing measured: a ratio over no code, a scorer
   * that did not run), or, for a paired difference, no value on one side. Absent when none was.
   */
  skipped?: number;
}

export interface BootstrapOptions {
  resamples?: number;
  /** Coverage of the interval, e.g. 0.95. */
  level?: number;
  seed?: number;
}

/** mulberry32: a small seeded generator; Math.random cannot be seeded. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function quantile(sorted: number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (position - below);
}

const meanOf = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * Mean of the values with a percentile bootstrap interval, resampling groups (tasks) and then
 * values within each drawn group (repeats). Empty groups are ignored; no value gives null. One
 * value has no spread to resample: its mean comes without bounds rather than the degenerate [x, x].
 */
export function bootstrapMean(groups: number[][], options: BootstrapOptions = {}): Interval | null {
  const kept = groups.filter((group) => group.length > 0);
  const all = kept.flat();
  if (all.length === 0) return null;
  const mean = meanOf(all);
  if (all.length < 2) return { mean, low: null, high: null, n: all.length };
  const resamples = options.resamples ?? 2000;
  const level = options.level ?? 0.95;
  const random = generator(options.seed ?? 1);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  const means: number[] = [];
  for (let sample = 0; sample < resamples; sample++) {
    let total = 0;
    let count = 0;
    for (let g = 0; g < kept.length; g++) {
      const group = pick(kept);
      for (let v = 0; v < group.length; v++) {
        total += pick(group);
        count += 1;
      }
    }
    means.push(total / count);
  }
  means.sort((a, b) => a - b);
  return {
    mean,
    low: quantile(means, (1 - level) / 2),
    high: quantile(means, 1 - (1 - level) / 2),
    n: all.length,
  };
}

/**
 * A value of one trial, or of one step of it when `step` is given, keyed by what pairs it with
 * the same trial (and step) of another condition. `null`: the step was scored and this value was
 * not measured there.
 */
export interface PairedValue {
  task: string;
  repeat: number;
  step?: string | number;
  value: number | null;
}

/**
 * The difference b − a over what both conditions measured: steps are paired by task, repeat and
 * step, and a step without a value on either side (or without a partner) is left out and counted
 * in `skipped`, never taken as 0. Each pair of trials gives the mean of its paired steps'
 * differences; the interval is bootstrapped over tasks and repeats.
 */
export function pairedDifference(
  a: readonly PairedValue[],
  b: readonly PairedValue[],
  options: BootstrapOptions = {},
): Interval | null {
  const trialKey = (value: PairedValue) => `${value.task}\u0000${value.repeat}`;
  const key = (value: PairedValue) => `${trialKey(value)}\u0000${value.step ?? ''}`;
  const first = new Map(a.map((value) => [key(value), value.value]));
  const second = new Set(b.map(key));
  let skipped = [...first.keys()].filter((k) => !second.has(k)).length;
  const byTrial = new Map<string, { task: string; differences: number[] }>();
  for (const value of b) {
    const partner = first.get(key(value));
    if (partner === undefined || partner === null || value.value === null) {
      skipped += 1;
      continue;
    }
    const trial = byTrial.get(trialKey(value)) ?? { task: value.task, differences: [] };
    trial.differences.push(value.value - partner);
    byTrial.set(trialKey(value), trial);
  }
  const byTask = new Map<string, number[]>();
  for (const { task, differences } of byTrial.values())
    byTask.set(task, [...(byTask.get(task) ?? []), meanOf(differences)]);
  const interval = bootstrapMean([...byTask.values()], options);
  return interval && skipped > 0 ? { ...interval, skipped } : interval;
}

/** Measured values grouped by task, for bootstrapMean (values that are null are left out). */
export function byTask(values: readonly PairedValue[]): number[][] {
  const groups = new Map<string, number[]>();
  for (const value of values)
    if (value.value !== null) groups.set(value.task, [...(groups.get(value.task) ?? []), value.value]);
  return [...groups.values()];
}
