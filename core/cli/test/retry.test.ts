import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TrialRecord } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { fixtureExperiment, spawnCli, workDir } from './fixtures/resume/spawn-cli.js';
import { runCli } from './run-cli.js';

const work = workDir('longhaul-retry-');

const readJson = async <T>(path: string) => JSON.parse(await readFile(path, 'utf8')) as T;

/** The fixture experiment with a harness whose first session fails with error:harness. */
async function failingOnce(): Promise<string> {
  const file = join(work(), 'fails-once.yaml');
  const marker = join(work(), 'failed-once');
  await writeFile(
    file,
    (await readFile(fixtureExperiment, 'utf8'))
      .replace('./plugin', join(import.meta.dirname, 'fixtures/resume/plugin'))
      .replace('options: { sleepMs: 300 }', `options: { sleepMs: 0, failOnce: ${JSON.stringify(marker)} }`),
  );
  return file;
}

describe('longhaul retry', () => {
  it('runs again the trial that ended in error, keeps its first attempt, and rewrites the summary', async () => {
    const runDir = join(work(), 'run');
    const first = await spawnCli(['run', await failingOnce(), '--run-dir', runDir], work()).done;
    expect(first.stdout).toMatch(/^2 trials: (error:harness, ok|ok, error:harness)\n$/);
    // A trial that errored measured nothing: the run says so and exits 3, so scripts notice.
    expect(first.code).toBe(3);
    expect(first.stderr).toContain(
      `1 of 2 trials did not finish: 1 error:harness — rates are over scored steps; see longhaul report ${runDir}\n`,
    );
    const trials = await readdir(join(runDir, 'trials'));
    const records = await Promise.all(
      trials.map((id) => readJson<TrialRecord>(join(runDir, 'trials', id, 'trial.json'))),
    );
    const failed = records.find((record) => record.status === 'error:harness')!;
    const passed = records.find((record) => record.status === 'ok')!;
    const passedBefore = await readFile(join(runDir, 'trials', passed.id, 'trial.json'), 'utf8');

    // Only statuses that exist are accepted; a status no trial has moves nothing.
    const bad = await runCli(['retry', runDir, '--status', 'eror'], work());
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr).toMatch(/unknown status 'eror'/);
    const none = await spawnCli(['retry', runDir, '--status', 'timeout'], work()).done;
    // The run still holds the errored trial, so it still exits 3.
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('retry: no trial ended with timeout; nothing to run again\n');
    expect(none.stderr).toContain(
      `resuming ${runDir}: all 2 trials complete, nothing to run; the summary and reports are written anew\n`,
    );
    expect(await readdir(join(runDir, 'trials', failed.id))).not.toContain('attempts');

    const retried = await spawnCli(['retry', runDir], work()).done;
    expect(retried.stderr).toContain(`retry: 1 trial ended with error: ${failed.id} (attempt 1 kept)\n`);
    expect(retried.code).toBe(0);
    expect(retried.stderr).not.toContain('did not finish');
    expect(retried.stdout).toBe('2 trials: ok, ok\n');
    const now = await readJson<TrialRecord>(join(runDir, 'trials', failed.id, 'trial.json'));
    expect(now.status).toBe('ok');
    const kept = await readJson<TrialRecord>(
      join(runDir, 'trials', failed.id, 'attempts', '1', 'trial.json'),
    );
    expect(kept).toMatchObject({ id: failed.id, status: 'error:harness' });
    expect(await readFile(join(runDir, 'trials', passed.id, 'trial.json'), 'utf8')).toBe(passedBefore);
    const summary = await readJson<{ trials: { id: string; status: string }[] }>(
      join(runDir, 'summary.json'),
    );
    expect(JSON.stringify(summary)).not.toContain('error:harness');

    // A retry killed in the middle of moving a trial aside: resume completes the move, then runs it.
    await rename(join(runDir, 'trials', passed.id), join(runDir, 'trials', `${passed.id}.retrying`));
    const resumed = await spawnCli(['resume', runDir], work()).done;
    expect(resumed.code).toBe(0);
    expect((await readdir(join(runDir, 'trials'))).sort()).toEqual(trials.sort());
    expect(await readFile(join(runDir, 'trials', passed.id, 'attempts', '1', 'trial.json'), 'utf8')).toBe(
      passedBefore,
    );
    expect((await readJson<TrialRecord>(join(runDir, 'trials', passed.id, 'trial.json'))).status).toBe('ok');
  });
});
