import { describe, expect, it } from 'vitest';
import { consistency, passAtK, wald, wilson } from '../src/stats.js';

describe('statistics', () => {
  it("reproduces the paper's interval half-widths (Tables 1 and 12)", () => {
    expect(100 * wilson(0.875, 80).halfWidth).toBeCloseTo(7.28, 2);
    expect(100 * wilson(0, 80).halfWidth).toBeCloseTo(2.29, 2);
    expect(100 * wilson(0.95, 80).halfWidth).toBeCloseTo(5.1, 2);
    expect(100 * wald(0.875, 80)).toBeCloseTo(7.25, 2);
    expect(wald(0, 80)).toBe(0);
  });

  it('computes the unbiased pass@k estimator', () => {
    expect(passAtK(5, 0, 5)).toBe(0);
    expect(passAtK(5, 1, 5)).toBe(1);
    expect(passAtK(5, 1, 1)).toBeCloseTo(0.2, 10);
    // 1 - C(3,2)/C(5,2) = 1 - 3/10
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 10);
    expect(() => passAtK(3, 1, 5)).toThrow(/at least 5 attempts/);
  });

  it('decomposes variance into between and within tasks (ICC, reliability)', () => {
    const c = consistency([
      [1, 1, 1, 1],
      [0, 0, 0, 0],
    ]);
    expect(c).toMatchObject({ sigma: 0, between: 0.25, within: 0, icc: 1, reliability: null });
    const noisy = consistency([
      [1, 0],
      [1, 0],
    ]);
    expect(noisy).toMatchObject({ sigma: 0.5, between: 0, within: 0.25, icc: 0, reliability: 0 });
  });

  it('gives no reliability, not 1e31, when every attempt of a task scored the same (a do-nothing agent)', () => {
    // 0.1 + 0.1 + 0.1 is not 3 × 0.1 in floating point: a naive variance leaves ~1e-34 behind.
    const c = consistency([
      [0.1, 0.1, 0.1],
      [0.7, 0.7, 0.7],
      [0.3, 0.3, 0.3, 0.3, 0.3],
    ]);
    expect(c).toMatchObject({ sigma: 0, within: 0, icc: 1, reliability: null });
    expect(c.between).toBeCloseTo(0.0622, 4);
    const flat = consistency([
      [0.1, 0.1, 0.1],
      [0.1, 0.1, 0.1],
    ]);
    expect(flat).toMatchObject({ sigma: 0, between: 0, within: 0, icc: null, reliability: null });
  });
});
