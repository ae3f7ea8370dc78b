import type { TrialRecord } from '../contracts/trial.js';

/** What `retryRun` re-runs by default: the trials that ended with a fault (`error:<class>`). */
export const defaultRetryStatuses = ['error'];

/**
 * Whether a trial's status is one of `statuses`: `error` stands for every `error:<class>`, any
 * other entry is a status (`error:harness`, `timeout`, `budget`, `failed`, `ok`).
 */
export function matchesRetryStatus(status: TrialRecord['status'], statuses: readonly string[]): boolean {
  return statuses.some((wanted) => wanted === status || (wanted === 'error' && status.startsWith('error:')));
}
