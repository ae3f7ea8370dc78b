/**
 * SLUMP's metrics. The paper's text lost its inline math; these are the reconstructions that
 * reproduce every reported aggregate (see test/paper.test.ts).
 */

/** Mean component faithfulness: the mean rubric score over a task's components (0–4). */
export function mcf(scores: readonly number[]): number | null {
  return scores.length === 0 ? null : mean(scores);
}

/** Dependency integration ratio: exported public symbols reused elsewhere ÷ exported (0–1). */
export function dir(reused: number, exported: number): number | null {
  return exported === 0 ? null : reused / exported;
}

/** Implementation faithfulness, the primary endpoint: 0.5·MCF/4 + 0.5·DIR (0–1). */
export function if50(mcfValue: number | null, dirValue: number | null): number | null {
  if (mcfValue === null || dirValue === null) return null;
  return 0.5 * (mcfValue / 4) + 0.5 * dirValue;
}

/** Components scored 4 (Faithful). */
export function fullyFaithful(scores: readonly number[]): number {
  return scores.filter((score) => score === 4).length;
}

/** Components at or below the severe threshold (≤ 1, Absent or Wrong, by default). */
export function severeFailures(scores: readonly number[], threshold = 1): number {
  return scores.filter((score) => score <= threshold).length;
}

/** SLUMP on a metric: control (single-shot) minus emergent; positive means emergence lost faithfulness. */
export function slumpLoss(control: number | null, emergent: number | null): number | null {
  return control === null || emergent === null ? null : control - emergent;
}

/**
 * Share of the control-to-emergent gap a treatment (a memory) recovers:
 * (treated − emergent) / (control − emergent), defined only when the gap is positive.
 */
export function gapRecovery(
  treated: number | null,
  emergent: number | null,
  control: number | null,
): number | null {
  if (treated === null || emergent === null || control === null) return null;
  const gap = control - emergent;
  return gap > 0 ? (treated - emergent) / gap : null;
}

/** (treated − baseline) / baseline, undefined when the baseline is 0. */
export function relativeImprovement(treated: number | null, baseline: number | null): number | null {
  if (treated === null || baseline === null || baseline === 0) return null;
  return (treated - baseline) / baseline;
}

export interface WinsTiesLosses {
  wins: number;
  ties: number;
  losses: number;
  /** Values that were missing (null), left out of the counts. */
  missing: number;
}

/** Signs of per-task deltas; |delta| ≤ tolerance is a tie. */
export function winsTiesLosses(deltas: readonly (number | null)[], tolerance = 0): WinsTiesLosses {
  const counts = { wins: 0, ties: 0, losses: 0, missing: 0 };
  for (const delta of deltas) {
    if (delta === null || Number.isNaN(delta)) counts.missing++;
    else if (Math.abs(delta) <= tolerance) counts.ties++;
    else if (delta > 0) counts.wins++;
    else counts.losses++;
  }
  return counts;
}

export function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export interface Summary extends WinsTiesLosses {
  /** Macro mean over the tasks with a value (null when none has one). */
  mean: number | null;
  median: number | null;
  n: number;
}

/** Macro statistics of per-task values, as the paper reports them (mean, median, W/T/L). */
export function summarize(values: readonly (number | null)[], tolerance = 0): Summary {
  const present = values.filter((value): value is number => value !== null && !Number.isNaN(value));
  return {
    mean: present.length ? mean(present) : null,
    median: present.length ? median(present) : null,
    n: present.length,
    ...winsTiesLosses(values, tolerance),
  };
}
