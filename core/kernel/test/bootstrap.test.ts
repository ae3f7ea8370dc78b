import { bootstrapMean, pairedDifference } from '@longhaul/core';
import { describe, expect, it } from 'vitest';

describe('bootstrapMean', () => {
  it('gives the mean inside an interval that narrows as repeats grow', () => {
    const few = bootstrapMean([
      [0, 1],
      [1, 0],
    ])!;
    const many = bootstrapMean([
      Array.from({ length: 200 }, (_, i) => i % 2),
      Array.from({ length: 200 }, (_, i) => (i + 1) % 2),
    ])!;
    expect(few.mean).toBe(0.5);
    expect(few.low).toBeLessThan(0.5);
    expect(few.high).toBeGreaterThan(0.5);
    expect(many.high! - many.low!).toBeLessThan(few.high! - few.low!);
    expect(many.n).toBe(400);
  });

  it('is the same interval every time (fixed seed), no interval for one value, null for none', () => {
    const groups = [[0.2, 0.4], [0.9], [0.5, 0.7, 0.1]];
    expect(bootstrapMean(groups)).toEqual(bootstrapMean(groups));
    expect(bootstrapMean([[3]])).toEqual({ mean: 3, low: null, high: null, n: 1 });
    expect(bootstrapMean([[], []])).toBeNull();
  });

  it('resamples tasks: one task far from the rest widens the interval', () => {
    const steady = bootstrapMean([
      [0.5, 0.5],
      [0.5, 0.5],
      [0.5, 0.5],
    ])!;
    const outlier = bootstrapMean([
      [0.5, 0.5],
      [0.5, 0.5],
      [1, 1],
    ])!;
    expect(steady.high! - steady.low!).toBe(0);
    expect(outlier.high! - outlier.low!).toBeGreaterThan(0.1);
  });
});

describe('pairedDifference', () => {
  it('pairs trials by task and repeat and leaves out trials without a partner', () => {
    const a = [
      { task: 't1', repeat: 1, value: 0.2 },
      { task: 't2', repeat: 1, value: 0.4 },
      { task: 't3', repeat: 1, value: 0.9 },
    ];
    const b = [
      { task: 't1', repeat: 1, value: 0.5 },
      { task: 't2', repeat: 1, value: 0.7 },
      { task: 't4', repeat: 1, value: 0 },
    ];
    const difference = pairedDifference(a, b)!;
    expect(difference.n).toBe(2);
    // t3 and t4 have no partner: left out, and said.
    expect(difference.skipped).toBe(2);
    expect(difference.mean).toBeCloseTo(0.3);
    expect(difference.low).toBeCloseTo(0.3);
    expect(difference.high).toBeCloseTo(0.3);
    expect(pairedDifference(a, [])).toBeNull();
  });

  it('pairs steps, leaves out a step without a value on either side, and says how many', () => {
    // A do-nothing agent has no erosion (no code); the working one has some at every step.
    const working = [1, 2, 3, 4].flatMap((t) =>
      [0, 1].map((step) => ({ task: `t${t}`, repeat: 1, step, value: 0.05 + 0.02 * t })),
    );
    const idle = working.map((value) => ({ ...value, value: null }));
    expect(pairedDifference(working, idle)).toBeNull();
    // Where the idle agent measured something at one step, only that step pairs.
    const partly = idle.map((value, i) => (i % 2 === 0 ? { ...value, value: 0.5 } : value));
    const difference = pairedDifference(working, partly)!;
    expect(difference.n).toBe(4);
    expect(difference.skipped).toBe(4);
    expect(difference.mean).toBeCloseTo(0.5 - 0.1, 10);
  });
});
