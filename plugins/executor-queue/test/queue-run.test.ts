import { join } from 'node:path';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterEach, describe, expect, it } from 'vitest';
import { Cluster } from './cluster.js';

const minutes = (n: number) => n * 60_000;

/** Each trial's per-step scores, by trial id. */
function scoresOf(summary: Awaited<ReturnType<Cluster['summary']>>) {
  return Object.fromEntries(
    summary.trials.map((t) => [t.id, { status: t.status, steps: t.steps.map((s) => s.scores) }]),
  );
}

describe.skipIf(!prerequisites.redis())('executor queue', () => {
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it(
    'runs twelve trials on three workers with the scores the local executor gives',
    async () => {
      cluster = await Cluster.create();
      const workers = await Promise.all(['w1', 'w2', 'w3'].map((name) => cluster!.worker(name)));
      const coordinator = cluster.coordinator('run', ['--set', 'executor.options.pollSeconds=1']);
      expect(await coordinator.exited, coordinator.output()).toBe(0);
      const queued = scoresOf(await cluster.summary());
      expect(Object.keys(queued)).toHaveLength(12);
      for (const trial of Object.values(queued)) {
        expect(trial.status).toBe('ok');
        expect(trial.steps.map((s) => s['tests.strict'])).toEqual([1, 1, 1]);
      }
      // More than one worker took part.
      const busy = workers.filter((w) => cluster!.trialLines(w.output(), 'ok').length > 0);
      expect(busy.length).toBeGreaterThan(1);

      const local = cluster.localRun(join(cluster.dir, 'local'));
      expect(await local.exited, local.output()).toBe(0);
      expect(scoresOf(await cluster.summary(join(cluster.dir, 'local')))).toEqual(queued);
    },
    minutes(20),
  );
});
