import { ConfigError, formatIssue } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { agreement, parseLabels, quadraticKappa, spearman } from '../src/calibration.js';

describe('judge calibration', () => {
  it('quadratic-weighted κ: 1 for agreement, −1 for opposite ends, 0.922 on a worked example', () => {
    expect(quadraticKappa([0, 1, 2, 3, 4], [0, 1, 2, 3, 4])).toBe(1);
    expect(quadraticKappa([0, 4], [4, 0])).toBe(-1);
    // Observed weighted disagreement 0.125 against 1.609 expected by chance: 1 − 0.0777.
    expect(quadraticKappa([0, 1, 2, 3, 4, 4, 2, 3], [0, 1, 2, 3, 3, 4, 3, 3])).toBeCloseTo(0.92233, 5);
  });

  it('reports exact match, within ±1, Spearman, boundary disagreements, per-level κ and false absences', () => {
    const human = [0, 1, 2, 3, 4, 4, 2, 3, 2, 1];
    const judge = [0, 1, 3, 3, 3, 4, 2, 3, 0, 1];
    const result = agreement(human, judge);
    expect(result.pairs).toBe(10);
    expect(result.exact).toBe(0.7);
    expect(result.withinOne).toBe(0.9);
    expect(result.boundary23).toBe(0.1);
    expect(result.boundary34).toBe(0.1);
    expect(result.falseAbsence).toBe(1);
    expect(result.perLevel.find((level) => level.level === 1)).toEqual({ level: 1, kappa: 1, support: 2 });
    expect(result.spearman).toBeGreaterThan(0.7);
    expect(spearman([1, 2, 3], [3, 2, 1])).toBeCloseTo(-1);
  });

  it('reads a CSV of labels and names the line and column of a bad score', () => {
    const table = parseLabels('task,component,human,judge\nquire,slugify,4,4\nquire,cli,2,3\n', 'labels.csv');
    expect(table).toEqual({ raters: { human: [4, 2], judge: [4, 3] }, rows: 2 });
    try {
      parseLabels('component,a1,a2,judge\nx,4,5,4\n', 'labels.csv');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues.map(formatIssue)).toEqual([
        "labels.csv:2:3: a2: expected a rubric score 0–4, found '5'",
      ]);
    }
  });
});
