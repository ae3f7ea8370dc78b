import type { TrialRecord } from '@longhaul/core';

/** Whether every scored step reached 1 on the metric; null when no step has the metric. */
export function trialSuccess(record: TrialRecord, metric: string): boolean | null {
  const values = record.steps
    .map((step) => step.scores[metric])
    .filter((v) => typeof v === 'number' || typeof v === 'boolean');
  if (values.length === 0) return null;
  return values.every((v) => Number(v) === 1);
}

/** Mean over steps of a [0, 1] metric; undefined when no step has it. */
export function trialPassRate(record: TrialRecord, metric: string): number | undefined {
  const values = record.steps
    .map((step) => step.scores[metric])
    .filter((v): v is number => typeof v === 'number');
  return values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0) / values.length;
}
