import { access, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TrialRecord } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import {
  fixtureExperiment,
  spawnCli,
  turnStarts,
  waitForEvent,
  workDir,
} from './fixtures/resume/spawn-cli.js';

const work = workDir('longhaul-resume-');

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

async function trialRecords(runDir: string): Promise<unknown[]> {
  const ids = (await readdir(join(runDir, 'trials'))).sort();
  return Promise.all(
    ids.map(async (id) => {
      const record = JSON.parse(
        await readFile(join(runDir, 'trials', id, 'trial.json'), 'utf8'),
      ) as TrialRecord;
      const { startedAt, endedAt, durationMs, ...rest } = record;
      return {
        ...rest,
        steps: rest.steps.map(({ startedAt: _s, endedAt: _e, durationMs: _d, ...step }) => step),
      };
    }),
  );
}

describe('longhaul resume after a run was killed with SIGKILL mid-trial', () => {
  it('re-runs no complete step and ends with the summary of an uninterrupted run', async () => {
    const reference = join(work(), 'reference');
    const uninterrupted = await spawnCli(['run', fixtureExperiment, '--run-dir', reference], work()).done;
    expect(uninterrupted.code).toBe(0);

    const runDir = join(work(), 'killed');
    const run = spawnCli(['run', fixtureExperiment, '--run-dir', runDir], work());
    // Kill while the first trial works on its second step (the harness sleeps in every turn).
    const turn = await waitForEvent(
      runDir,
      (e) => e.type === 'turn.start' && e.steps.includes(1),
      30_000,
      run,
    );
    run.child.kill('SIGKILL');
    const killed = await run.done;
    expect(killed.signal).toBe('SIGKILL');
    const trialId = turn.type === 'turn.start' ? turn.trialId : '';
    const stepsDir = join(runDir, 'trials', trialId, 'steps');
    expect(await exists(join(stepsDir, '01-part-1', 'scores.json'))).toBe(true);
    expect(await exists(join(stepsDir, '02-part-2', 'scores.json'))).toBe(false);
    expect(await exists(join(runDir, 'summary.json'))).toBe(false);
    const trial = JSON.parse(
      await readFile(join(runDir, 'trials', trialId, 'trial.json'), 'utf8'),
    ) as TrialRecord;
    expect(trial.status).toBe('running');

    const resumed = await spawnCli(['resume', runDir], work()).done;
    expect(resumed.stderr).toContain(`resuming ${runDir}`);
    expect(resumed.code).toBe(0);

    // Step 1 of the killed trial ran once; step 2 twice (killed, then resumed); nothing else repeated.
    const counts = await turnStarts(runDir);
    expect(counts).toEqual({
      [`${trialId}#0`]: 1,
      [`${trialId}#1`]: 2,
      [`${trialId}#2`]: 1,
      ...Object.fromEntries(
        Object.keys(await turnStarts(reference))
          .filter((key) => !key.startsWith(`${trialId}#`))
          .map((key) => [key, 1]),
      ),
    });
    const summary = JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8'));
    const expected = JSON.parse(await readFile(join(reference, 'summary.json'), 'utf8'));
    expect(summary).toEqual(expected);
    expect(summary.trials.every((t: { status: string }) => t.status === 'ok')).toBe(true);
    expect(await trialRecords(runDir)).toEqual(await trialRecords(reference));
  });

  it('says "no such run" for a directory that was never made', async () => {
    const dir = join(work(), 'nothing-here');
    const result = await spawnCli(['resume', dir], work()).done;
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `${dir}: no such run: the directory does not exist; check the path (runs are made under runs/ by default)\n1 problem found\n`,
    );
  });
});
