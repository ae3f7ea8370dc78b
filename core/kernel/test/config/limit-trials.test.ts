import { describe, expect, it } from 'vitest';
import { limitTrials } from '../../src/config/matrix.js';
import type { TrialSpec } from '../../src/contracts/trial.js';

/** A task-major plan, as expandTrials makes it: each task, each condition, each repeat. */
function plan(tasks: string[], conditions: string[], repeats: number): TrialSpec[] {
  return tasks.flatMap((task) =>
    conditions.flatMap((condition) =>
      Array.from(
        { length: repeats },
        (_, index) =>
          ({
            id: `${task}.${condition}.r${index + 1}`,
            condition: { key: condition },
          }) as unknown as TrialSpec,
      ),
    ),
  );
}

const ids = (trials: TrialSpec[]) => trials.map((trial) => trial.id);
const perCondition = (trials: TrialSpec[]) =>
  Object.fromEntries(
    [...new Set(trials.map((t) => t.condition.key))].map((key) => [
      key,
      trials.filter((t) => t.condition.key === key).length,
    ]),
  );

describe('limitTrials', () => {
  it('gives each condition ⌊N/k⌋ or ⌈N/k⌉ trials, each in the order of tasks, where a prefix starves the last conditions', () => {
    const trials = plan(['a', 'b', 'c'], ['x', 'y', 'z'], 2);
    // A prefix of 4 would be a.x.r1, a.x.r2, a.y.r1, a.y.r2: no trial of z.
    const limited = limitTrials(trials, 4);
    expect(perCondition(limited)).toEqual({ x: 2, y: 1, z: 1 });
    expect(ids(limited)).toEqual(['a.x.r1', 'a.x.r2', 'a.y.r1', 'a.z.r1']);
    expect(perCondition(limitTrials(trials, 6))).toEqual({ x: 2, y: 2, z: 2 });
    expect(ids(limitTrials(trials, 7))).toEqual([
      'a.x.r1',
      'a.x.r2',
      'a.y.r1',
      'a.y.r2',
      'a.z.r1',
      'a.z.r2',
      'b.x.r1',
    ]);
  });

  it('keeps the plan whole when the limit reaches it', () => {
    const trials = plan(['a', 'b'], ['x', 'y'], 1);
    expect(limitTrials(trials, undefined)).toBe(trials);
    expect(limitTrials(trials, 10)).toBe(trials);
  });
});
