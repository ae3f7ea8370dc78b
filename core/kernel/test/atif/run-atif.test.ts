import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type AtifTrajectory, RunStore, startRun, trialAtifFile } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { makeFixture } from '../runner/fixture.js';

describe('the run store’s ATIF export', () => {
  it('writes trials/<id>/trajectory.atif.json with every step of the trial', async () => {
    const fixture = await makeFixture();
    const runDir = join(fixture.dir, 'run');
    const result = await startRun(fixture.experiment, { runDir });
    const [trial] = result.trials;
    const file = trialAtifFile(new RunStore(runDir), trial!.spec.id);
    expect(file).toBe(join(runDir, 'trials', trial!.spec.id, 'trajectory.atif.json'));
    const atif = JSON.parse(await readFile(file, 'utf8')) as AtifTrajectory;
    expect(atif.schema_version).toBe('ATIF-v1.7');
    expect(atif.trajectory_id).toBe(trial!.spec.id);
    expect(atif.agent.name).toBe(trial!.spec.condition.harness.id);
    const turns = atif.extra?.turns as unknown[];
    expect(turns).toHaveLength(fixture.task.steps.length);
    expect(atif.steps.length).toBeGreaterThan(0);
  });
});
