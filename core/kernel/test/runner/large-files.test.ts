import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RunStore, startRun } from '@longhaul/core';
import type { FakeTurn } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import { makeFixture } from './fixture.js';

describe('a workspace file over the environment’s maxFileSize', () => {
  it('is left out of the snapshot and named, with its size, in scores.json, a warning and diff.patch', async () => {
    const fixture = await makeFixture({
      steps: 2,
      environment: { maxFileBytes: 1000 },
      // Step 1 leaves a large file and a small one; step 2 only touches the small one.
      harness: {
        turns: ({ turn }): FakeTurn => ({
          edits:
            turn === 0
              ? { 'data/big.log': 'x'.repeat(5000), 'notes.txt': 'one\n' }
              : { 'notes.txt': 'two\n' },
        }),
      },
    });
    const runDir = join(fixture.dir, 'run');
    const result = await startRun(fixture.experiment, { runDir });
    const trialId = result.trials[0]!.record.id;
    const store = new RunStore(runDir);
    const [one, two] = fixture.task.steps;

    const first = await store.readStepScores(trialId, one!);
    expect(first?.details.snapshot).toEqual({ skipped: [{ path: 'data/big.log', size: 5000 }] });
    expect((await store.snapshots.get(first!.snapshot!)).map((f) => f.path)).not.toContain('data/big.log');
    expect(await store.snapshots.skipped(first!.snapshot!)).toEqual([{ path: 'data/big.log', size: 5000 }]);
    const firstDiff = await readFile(store.stepFile(trialId, one!, 'diff.patch'), 'utf8');
    expect(firstDiff).toContain(
      'diff --git a/data/big.log b/data/big.log\nLarge files /dev/null and b/data/big.log (4.9 KiB, over maxFileSize: not in the snapshot) differ\n',
    );
    expect(firstDiff).toContain('+++ b/notes.txt');

    // Still there in step 2, so still recorded; unchanged in size, so not in step 2's diff.
    const second = await store.readStepScores(trialId, two!);
    expect(second?.details.snapshot).toEqual({ skipped: [{ path: 'data/big.log', size: 5000 }] });
    const secondDiff = await readFile(store.stepFile(trialId, two!, 'diff.patch'), 'utf8');
    expect(secondDiff).not.toContain('big.log');
    expect(secondDiff).toContain('-one\n+two');

    const warnings = fixture.reporter
      .ofType('log')
      .filter((event) => event.level === 'warn')
      .map((event) => event.message);
    expect(warnings).toContain(
      "part-1: data/big.log (4.9 KiB) is over the environment's maxFileSize: not in the snapshot",
    );
  });
});
