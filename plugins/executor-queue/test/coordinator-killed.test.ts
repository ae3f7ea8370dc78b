import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterEach, expect, it } from 'vitest';
import { Cluster, expectAllPassed, runFlags, until } from './cluster.js';

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

it.skipIf(!prerequisites.redis())(
  'the coordinator killed: `longhaul resume` re-attaches to the queue and finishes the run',
  async () => {
    cluster = await Cluster.create();
    const worker = await cluster.worker('w1');
    const first = cluster.coordinator('run', runFlags(4));
    // Kill the coordinator once a trial has ended: one trial done, one running, the rest queued.
    const ended = () => cluster!.trialLines(worker.output(), 'ok');
    await until(() => ended().length > 0, 600_000, 'a first trial to end');
    first.child.kill('SIGKILL');
    await first.exited;
    expect(existsSync(join(cluster.runDir, 'summary.json'))).toBe(false);

    const resumed = cluster.coordinator('resume');
    expect(await resumed.exited, resumed.output()).toBe(0);
    const summary = await expectAllPassed(cluster, 4);
    // The reporters' output: the summary table on the terminal and the run's figures.
    expect(resumed.output()).toMatch(/oracle\/checkpoints\/none\s+4\s+12\s+12\s+0\s+0\s+100\.0%/);
    expect(existsSync(join(cluster.runDir, 'figures.json'))).toBe(true);
    // No job was added twice and no trial ran twice: each started once and ended once.
    const started = cluster.trialLines(worker.output(), 'started');
    expect(started.sort()).toEqual(
      summary.trials.map((t) => `trial ${t.id} of ${cluster!.runId}: started`).sort(),
    );
    expect(ended().sort()).toEqual(
      summary.trials.map((t) => `trial ${t.id} of ${cluster!.runId}: ok`).sort(),
    );
    const events = (await readFile(join(cluster.runDir, 'events.jsonl'), 'utf8')).trim().split('\n');
    expect(events.filter((line) => JSON.parse(line).type === 'run.start')).toHaveLength(2);
  },
  1_200_000,
);
