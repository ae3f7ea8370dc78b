import { moveToAttempts } from './attempts.js';
import { defaultRetryStatuses, matchesRetryStatus } from './retry-statuses.js';
import { isTrialComplete, openRun, type RunOptions, type RunResult, resumeExperiment } from './start-run.js';

export interface RetryOptions extends RunOptions {
  /** Statuses whose trials run again (default: `defaultRetryStatuses`). */
  statuses?: readonly string[];
  /** Told which trials were moved aside, before the run resumes. */
  onRetry?(retried: RetryResult['retried']): void;
}

export interface RetryResult extends RunResult {
  /** The trials moved aside to run again, with the attempt number their earlier run was kept as. */
  retried: { id: string; attempt: number }[];
}

/**
 * Runs again the complete trials of the run in `runDir` that ended with one of `statuses`. Each
 * one's folder moves, whole, to `trials/<id>/attempts/<n>/` (earlier attempts stay beside it),
 * which leaves the trial incomplete; then the run resumes, running exactly those trials and
 * anything an interrupted run left, and writes its summary anew. A retry that is stopped is
 * finished by `resume` or another `retry`; a move cut short is completed first.
 */
export async function retryRun(runDir: string, options: RetryOptions = {}): Promise<RetryResult> {
  const { dir, store, experiment, writer } = await openRun(runDir, options, 'longhaul retry');
  const statuses = options.statuses ?? defaultRetryStatuses;
  const retried: RetryResult['retried'] = [];
  try {
    for (const spec of experiment.trials) {
      const record = await store.readTrial(spec.id);
      if (!record || !isTrialComplete(record) || !matchesRetryStatus(record.status, statuses)) continue;
      retried.push({ id: spec.id, attempt: await moveToAttempts(store, spec.id) });
    }
  } catch (error) {
    await writer.release();
    throw error;
  }
  options.onRetry?.(retried);
  const result = await resumeExperiment(experiment, dir, options, writer);
  return { ...result, retried };
}
