import type { StepStatus } from '../contracts/status.js';
import type { TrialRecord } from '../contracts/trial.js';

/**
 * What a planned step counts as in every aggregate. `scored`: the agent's work was scored (a step
 * that failed its tests, or that a limit kept the agent from, is scored and unsolved). `errored`:
 * a fault (`error:<class>`) lost it. `cancelled`: the user or the runner stopped it. `missing`:
 * no trial record holds it at all. Only scored steps enter a rate or a mean; the others are
 * counted beside them, never averaged in as 0.
 */
export type Outcome = 'scored' | 'errored' | 'cancelled' | 'missing';

export type ClassifiedOutcome =
  | { outcome: 'scored' | 'cancelled' | 'missing' }
  | { outcome: 'errored'; errorClass: string };

/**
 * The outcome of one planned step. `step` is the trial's record of it (absent when the trial
 * never reached it); `trialStatus` the trial's status (absent when there is no trial record).
 * A step the trial never reached takes the trial's ending: after a fault it is errored, after a
 * cancel (or in a trial still running or pending when the run stopped) cancelled, after a limit
 * scored and unsolved.
 */
export function stepOutcome(
  step: { status: StepStatus } | undefined,
  trialStatus: TrialRecord['status'] | undefined,
): ClassifiedOutcome {
  if (trialStatus === undefined) return { outcome: 'missing' };
  const status = step === undefined || step.status === 'skipped' ? trialStatus : step.status;
  if (status === 'cancelled' || status === 'running' || status === 'pending') return { outcome: 'cancelled' };
  if (status.startsWith('error:')) return { outcome: 'errored', errorClass: status.slice('error:'.length) };
  return { outcome: 'scored' };
}

/** How many steps of a cell had each outcome, and the errored ones by class. */
export interface OutcomeCounts {
  scored: number;
  errored: number;
  cancelled: number;
  missing: number;
  /** Errored steps per error class (`model`, `sandbox`, …), classes in sorted order. */
  errorClasses: Record<string, number>;
}

export function countOutcomes(outcomes: Iterable<ClassifiedOutcome>): OutcomeCounts {
  const counts: OutcomeCounts = { scored: 0, errored: 0, cancelled: 0, missing: 0, errorClasses: {} };
  const classes = new Map<string, number>();
  for (const item of outcomes) {
    counts[item.outcome] += 1;
    if (item.outcome === 'errored') classes.set(item.errorClass, (classes.get(item.errorClass) ?? 0) + 1);
  }
  counts.errorClasses = Object.fromEntries([...classes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return counts;
}

/** The outcomes of every planned step of a trial, in plan order. */
export function trialStepOutcomes(
  planned: readonly { index: number }[],
  record: Pick<TrialRecord, 'status' | 'steps'> | undefined,
): ClassifiedOutcome[] {
  return planned.map((step) =>
    stepOutcome(
      record?.steps.find((candidate) => candidate.index === step.index),
      record?.status,
    ),
  );
}
