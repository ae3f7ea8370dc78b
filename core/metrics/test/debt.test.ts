import { describe, expect, it } from 'vitest';
import { analyzeProject } from '../src/index.js';

// Cognitive complexity 16: four nested ifs (1 + 2 + 3 + 4) and six more at the top level.
const deep = `def deep(a, b, c, d, e):
    if a:
        if b:
            if c:
                if d:
                    return 1
    if e:
        return 2
    if a:
        return 3
    if b:
        return 4
    if c:
        return 5
    if d:
        return 6
    if e:
        return 7
    return 0
`;

describe('technical debt', () => {
  it('adds 5 minutes per weight of each finding, and 5 + 1 per point of cognitive complexity over 15', async () => {
    const report = await analyzeProject([{ path: 'd.py', text: deep }], {
      onlyRules: ['py-nested-if-merge'],
    });
    expect(report.callables[0]?.cognitive).toBe(16);
    // py-nested-if-merge (weight 1) flags `if c: if d:` and `if b: if c:` and `if a: if b:`.
    expect(report.summary.rule_hits).toBe(3);
    expect(report.summary.technical_debt_minutes).toBe(3 * 5 + (5 + 1));
  });

  it('adds 10 minutes per duplicated block beyond the first of its group', async () => {
    const twice = `${deep}\n\n${deep.replace('def deep', 'def deeper')}`;
    const report = await analyzeProject([{ path: 'd.py', text: twice }], {
      rules: false,
      cognitiveThreshold: 100,
    });
    expect(report.summary.technical_debt_minutes).toBe(10);
  });
});
