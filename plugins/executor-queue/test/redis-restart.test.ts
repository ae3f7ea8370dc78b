import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterEach, expect, it } from 'vitest';
import { Cluster, expectAllPassed, runFlags, until } from './cluster.js';

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

/** scores.json of every complete step in the run, with its modification time. */
async function scoredSteps(trials: string): Promise<Map<string, number>> {
  const scored = new Map<string, number>();
  for (const trial of existsSync(trials) ? await readdir(trials) : []) {
    const steps = join(trials, trial, 'steps');
    for (const step of existsSync(steps) ? await readdir(steps) : []) {
      const file = join(steps, step, 'scores.json');
      if (existsSync(file)) scored.set(file, (await stat(file)).mtimeMs);
    }
  }
  return scored;
}

it.skipIf(!prerequisites.redis())(
  'Redis killed and restarted mid-run: no job is lost and no complete step runs again',
  async () => {
    cluster = await Cluster.create();
    const workers = await Promise.all(['w1', 'w2'].map((name) => cluster!.worker(name)));
    const coordinator = cluster.coordinator('run', runFlags(4));
    const trials = join(cluster.runDir, 'trials');
    // Kill Redis once trials are under way, and keep it down longer than the workers' locks last
    // (--lock-seconds 5): the trials go on meanwhile and their jobs must not run them twice.
    let before = new Map<string, number>();
    await until(
      async () => {
        before = await scoredSteps(trials);
        return [...before.keys()].some((file) => file.includes('01-lines'));
      },
      600_000,
      'a first step to be scored',
    );
    await cluster.stopRedis('SIGKILL');
    before = await scoredSteps(trials);
    await new Promise((r) => setTimeout(r, 8_000));
    await cluster.startRedis();

    expect(await coordinator.exited, coordinator.output()).toBe(0);
    const summary = await expectAllPassed(cluster, 4);
    // Steps complete when Redis went down were never scored again.
    const after = await scoredSteps(trials);
    for (const [file, mtime] of before) expect(after.get(file), file).toBe(mtime);
    // Each trial ended once, on one worker (a job taken again after its lock lapsed finds it ended).
    const ended = workers.flatMap((w) => cluster!.trialLines(w.output(), 'ok'));
    const logs = workers.map((w) => w.output()).join('\n');
    expect(ended.sort(), logs).toEqual(
      summary.trials.map((t) => `trial ${t.id} of ${cluster!.runId}: ok`).sort(),
    );
    expect(coordinator.output() + logs).toMatch(/waiting for it to come back/);
  },
  1_200_000,
);
