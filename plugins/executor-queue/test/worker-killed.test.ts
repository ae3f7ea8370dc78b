import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
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
  'workers killed mid-trial, twice: another worker resumes the trial from its last complete step',
  async () => {
    cluster = await Cluster.create();
    const first = await cluster.worker('w1');
    const coordinator = cluster.coordinator('run', runFlags(1));
    const trials = join(cluster.runDir, 'trials');
    let stepDir = (n: string) => join(trials, n);
    // Step 2's case pauses three seconds: kill the worker while it is scored.
    await until(
      async () => {
        const [trial] = existsSync(trials) ? await readdir(trials) : [];
        if (!trial) return false;
        stepDir = (n) => join(trials, trial, 'steps', n);
        return existsSync(join(stepDir('01-lines'), 'scores.json')) && existsSync(stepDir('02-words'));
      },
      600_000,
      'step 2 to start',
    );
    expect(existsSync(join(stepDir('02-words'), 'scores.json'))).toBe(false);
    first.child.kill('SIGKILL');
    await first.exited;
    const firstScored = (await stat(join(stepDir('01-lines'), 'scores.json'))).mtimeMs;

    // The second worker vanishes too, soon after it took the trial: with `attempts: 3` a third
    // worker still gets it.
    const second = await cluster.worker('w2');
    await until(
      () => /started \(attempt/.test(second.output()),
      600_000,
      'the second worker to take the trial',
    );
    second.child.kill('SIGKILL');
    await second.exited;
    expect(existsSync(join(stepDir('03-chars'), 'scores.json'))).toBe(false);

    await cluster.worker('w3');
    expect(await coordinator.exited, coordinator.output()).toBe(0);
    await expectAllPassed(cluster, 1);
    // Step 1 was complete when the first worker died: it never ran again.
    expect((await stat(join(stepDir('01-lines'), 'scores.json'))).mtimeMs).toBe(firstScored);
    const events = (await readFile(join(cluster.runDir, 'events.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; step?: number });
    expect(events.filter((e) => e.type === 'step.start' && e.step === 0)).toHaveLength(1);
  },
  1_200_000,
);
