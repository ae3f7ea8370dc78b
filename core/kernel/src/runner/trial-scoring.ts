import type { TrajectoryEvent } from '../contracts/index.js';
import { bounded, classifyAs, errorMessage } from './faults.js';
import type { StepClosing } from './step-closing.js';
import type { TrialContext, TrialPlugins } from './trial-context.js';

/**
 * Runs the trial scorers over the whole trajectory once the turns are done; their scores go
 * into the trial record. A scorer that fails records the trial's error and the others still
 * score. Returns `cancelled` when the run took the scoring away (the scores are then not given).
 */
export async function scoreTrial(
  trial: TrialContext,
  plugins: TrialPlugins,
  steps: StepClosing,
): Promise<'cancelled' | undefined> {
  if (plugins.trialScorers.length === 0) return undefined;
  const { spec, store } = trial;
  const signal = trial.cancellation.abortSignal;
  const events: TrajectoryEvent[] = [];
  for (const step of spec.task.steps) events.push(...(await store.readTrajectory(spec.id, step)));
  steps.sync();
  const record = steps.record;
  for (const { label, scorer } of plugins.trialScorers) {
    try {
      const scores = await bounded(
        () =>
          scorer.score({
            trial: spec,
            record,
            events,
            snapshots: trial.snapshots,
            trialDir: store.trialDir(spec.id),
          }),
        spec.limits.stepMs,
        `trial scorer ${label}`,
        signal,
      );
      for (const score of scores) record.scores[`${label}.${score.metric}`] = score.value;
    } catch (error) {
      // Taken away mid-score (the run cancelled, a worker that lost its job): not the scorer's fault.
      if (classifyAs(error, 'scorer', signal) === 'cancelled') return 'cancelled';
      record.error = `trial scorer ${label}: ${errorMessage(error)}`;
      trial.log('error', record.error);
    }
  }
  return undefined;
}
