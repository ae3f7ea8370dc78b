import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Release, type Scorer, type Slots, startRun, tokens } from '@longhaul/core';
import { FakeEnvironment, fakePlugin } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import { makeFixture, ref } from './fixture.js';

/** Counts the CPU work running at once (snapshots and cases) across every trial of a run. */
class Meter {
  now = 0;
  peak = 0;
  async run(ms: number): Promise<void> {
    this.peak = Math.max(this.peak, ++this.now);
    await sleep(ms);
    this.now--;
  }
}

/** A tests scorer in miniature: takes the trial's case slots as `@longhaul/scorer-tests` does. */
function casesScorer(slots: Slots, meter: Meter, ranks: Map<string, number>): Scorer {
  return {
    scope: 'step',
    version: '1',
    async score(ctx) {
      ranks.set(ctx.trial.id, slots.rank);
      const held: Release[] = [await slots.acquire(ctx.signal)];
      const more = slots.tryAcquire();
      if (more) held.push(more);
      let cases = 6;
      await Promise.all(
        held.map(async (release) => {
          while (cases > 0) {
            cases--;
            await meter.run(5);
          }
          release();
        }),
      );
      return [{ metric: 'cases', value: 6 }];
    },
  };
}

describe('the run-wide CPU budget', () => {
  it('runs at most caseWorkers of snapshots and cases at once across trials side by side', async () => {
    const meter = new Meter();
    const ranks = new Map<string, number>();
    const fixture = await makeFixture({
      repeats: 4,
      extraPlugins: [
        fakePlugin('environment', 'metered', (ctx) => {
          const environment = new FakeEnvironment({ snapshots: ctx.get(tokens.SnapshotStore) });
          const open = environment.open.bind(environment);
          environment.open = async (spec) => {
            const sandbox = await open(spec);
            const snapshot = sandbox.snapshot.bind(sandbox);
            // A snapshot of a real workspace reads and hashes every file: CPU work of the runner.
            sandbox.snapshot = async () => {
              await meter.run(10);
              return snapshot();
            };
            return sandbox;
          };
          return environment;
        }),
        fakePlugin('scorer', 'cases', (ctx) => casesScorer(ctx.get(tokens.CaseSlots), meter, ranks)),
      ],
    });
    const { experiment } = fixture;
    experiment.config.caseWorkers = 2;
    experiment.trials = experiment.trials.map((trial) => ({
      ...trial,
      condition: { ...trial.condition, environment: ref('metered') },
      scorers: [ref('cases')],
    }));

    const result = await startRun(experiment, { runDir: join(fixture.dir, 'run'), concurrency: 4 });

    expect(result.trials.map((t) => t.record.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(result.trials.every((t) => t.record.steps.every((s) => s.scores['cases.cases'] === 6))).toBe(true);
    // The budget bounds snapshots and cases together, and the trials did use all of it.
    expect(meter.peak).toBe(2);
    // Each trial takes slots through a view of its own, ranked by when it started.
    const byTrial = experiment.trials.map((trial) => ranks.get(trial.id));
    expect(new Set(byTrial).size).toBe(4);
    expect([...byTrial].sort((a, b) => a! - b!)).toEqual(byTrial);
  });
});
