import { mkdir, readdir, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunStore } from '../store/run-store.js';

const movingSuffix = '.retrying';

/**
 * Moves a trial's folder aside to `trials/<id>/attempts/<n>/`, so the trial runs again from
 * scratch with its earlier attempts kept. The folder is first renamed whole to
 * `trials/<id>.retrying`; `finishAttemptMoves` completes a move a crash cut short. Returns n.
 */
export async function moveToAttempts(store: RunStore, trialId: string): Promise<number> {
  const moving = `${store.trialDir(trialId)}${movingSuffix}`;
  await rename(store.trialDir(trialId), moving);
  return finishMove(moving);
}

/** Completes the moves an interrupted retry left (`trials/<id>.retrying`); resume calls it too. */
export async function finishAttemptMoves(store: RunStore): Promise<void> {
  const entries = await readdir(store.trialsDir).catch(() => [] as string[]);
  for (const name of entries) {
    if (name.endsWith(movingSuffix)) await finishMove(join(store.trialsDir, name));
  }
}

/**
 * `trials/<id>.retrying` (the trial's folder, renamed in one step) becomes
 * `trials/<id>/attempts/<n>`, its own earlier attempts moving up beside it. Each step is a
 * rename that can be repeated after a crash. Returns n.
 */
async function finishMove(moving: string): Promise<number> {
  const trialDir = moving.slice(0, -movingSuffix.length);
  const attempts = join(trialDir, 'attempts');
  await mkdir(trialDir, { recursive: true });
  const older = join(moving, 'attempts');
  if ((await stat(older).catch(() => undefined)) !== undefined) {
    if ((await stat(attempts).catch(() => undefined)) === undefined) await rename(older, attempts);
  }
  await mkdir(attempts, { recursive: true });
  const attempt = (await readdir(attempts)).filter((name) => /^\d+$/.test(name)).length + 1;
  await rename(moving, join(attempts, String(attempt)));
  return attempt;
}
