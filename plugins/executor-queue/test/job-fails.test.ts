import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterEach, expect, it } from 'vitest';
import { Cluster, until } from './cluster.js';

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

it.skipIf(!prerequisites.redis())(
  'a job that fails every attempt is recorded with its fault class',
  async () => {
    cluster = await Cluster.create();
    const coordinator = cluster.coordinator('run', [
      '--set',
      'repeats=1',
      '--set',
      'executor.options.attempts=2',
      '--set',
      'executor.options.pollSeconds=1',
    ]);
    await until(() => existsSync(join(cluster!.runDir, 'events.jsonl')), 600_000, 'the run to start');
    // The worker cannot read the run's experiment: every attempt fails.
    await writeFile(join(cluster.runDir, 'experiment.yaml'), 'name: [\n');
    const worker = await cluster.worker('w1');
    await coordinator.exited;
    const [trial] = await readdir(join(cluster.runDir, 'trials'));
    const record = JSON.parse(await readFile(join(cluster.runDir, 'trials', trial!, 'trial.json'), 'utf8'));
    expect(record.status).toBe('error:worker');
    expect(record.error).toMatch(/experiment\.yaml/);
    expect(record.error).toMatch(/tried 2 times/);
    expect(worker.output()).toMatch(/cannot run here/);
  },
  1_200_000,
);
