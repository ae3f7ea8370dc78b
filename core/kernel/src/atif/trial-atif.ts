import { join } from 'node:path';
import { writeJsonAtomic } from '../store/atomic.js';
import type { RunStore, StepRef } from '../store/run-store.js';
import type { AtifTrajectory } from './atif-types.js';
import { type AtifMeta, toAtif } from './to-atif.js';

/** Where a trial's ATIF document lives in the run store. */
export function trialAtifFile(store: RunStore, trialId: string): string {
  return join(store.trialDir(trialId), 'trajectory.atif.json');
}

/**
 * Writes `trials/<id>/trajectory.atif.json`: every step's stored trajectory, in step order, as one
 * ATIF document. Steps without a trajectory (skipped, or not reached) add nothing.
 */
export async function writeTrialAtif(
  store: RunStore,
  trialId: string,
  steps: readonly StepRef[],
  meta: AtifMeta,
): Promise<AtifTrajectory> {
  const ordered = [...steps].sort((a, b) => a.index - b.index);
  const events = (await Promise.all(ordered.map((step) => store.readTrajectory(trialId, step)))).flat();
  const atif = toAtif(events, { trajectoryId: trialId, ...meta });
  await writeJsonAtomic(trialAtifFile(store, trialId), atif);
  return atif;
}
