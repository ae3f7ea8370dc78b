import type { RegradedStep } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { changedScores, regradeSummary, stepLine } from '../src/regrade-output.js';

type Scores = RegradedStep['scores'];

const step = (
  index: number,
  before: Scores,
  after: Scores,
  condition = 'ide/checkpoints/none',
): RegradedStep => ({
  trialId: `worklog.${condition.replaceAll('/', '.')}.r1`,
  condition,
  index,
  step: `0${index + 1}-part`,
  status: 'ok',
  scores: after,
  before: { status: 'ok', scores: before },
});

// Thirty scores, as the tests scorer gives a step; the regrade changes three.
const many = Object.fromEntries(
  Array.from({ length: 30 }, (_, n) => [`tests.metric${String(n).padStart(2, '0')}`, n]),
);
const changed = { ...many, 'tests.metric03': 0, 'tests.metric07': 0.3333333, 'tests.metric20': true };

describe('regrade output', () => {
  it('an added scorer: only its new scores are changes, the scores of scorers it did not run are not dropped', () => {
    const added = step(0, { ...many, 'quality.erosion': 0.3 }, { 'todos.count': 2 });
    expect(changedScores(added, ['todos'])).toEqual([{ key: 'todos.count', before: undefined, after: 2 }]);
    expect(stepLine(added, false, { scorers: ['todos'] })).toBe('   1 01-part  ok  todos.count - → 2');
    const table = regradeSummary([added], 200, ['todos']);
    expect(table).toMatch(/todos\.count +1\/1 +- +2\n/);
    expect(table).not.toContain('tests.');
    // Without the list (every scorer re-ran), a score missing after the regrade was dropped.
    expect(changedScores(added)).toHaveLength(32);
  });

  it('a step shows only the scores that changed, old → new, rounded', () => {
    expect(stepLine(step(1, many, changed), false)).toBe(
      '   2 02-part  ok  tests.metric03 3 → 0, tests.metric07 7 → 0.333, tests.metric20 20 → true',
    );
    expect(stepLine(step(0, many, many), true)).toBe('   1 01-part  ok (regraded earlier)  no score changed');
    // Padded to the run's longest step id, statuses line up.
    expect(stepLine(step(0, many, many), false, { stepWidth: 12 })).toBe(
      '   1 01-part       ok  no score changed',
    );
  });

  it('names a score added or dropped, and a changed status', () => {
    const line = stepLine({ ...step(0, { a: 1, b: 2 }, { b: 2, c: null }), status: 'error:scorer' }, false);
    expect(line).toBe('   1 01-part  ok → error:scorer  a 1 → -, c - → null');
  });

  it('fits the terminal: the changes that do not fit are counted', () => {
    const line = stepLine(step(1, many, changed), false, { width: 60 });
    expect(line).toBe('   2 02-part  ok  tests.metric03 3 → 0, +2 more');
    expect(line.length).toBeLessThanOrEqual(60);
    // However narrow, one change is shown.
    expect(stepLine(step(1, many, changed), false, { width: 10 })).toBe(
      '   2 02-part  ok  tests.metric03 3 → 0, +2 more',
    );
  });

  it('sums up per condition the scores that changed, with their means before and after', () => {
    const steps = [
      step(0, many, many),
      step(1, many, changed),
      step(0, { 'tests.strict': 1 }, { 'tests.strict': 0 }, 'oracle/checkpoints/none'),
    ];
    expect(regradeSummary(steps)).toBe(
      [
        'CONDITION                SCORE           CHANGED  MEAN BEFORE  MEAN AFTER',
        'ide/checkpoints/none     tests.metric03  1/2      3            1.5',
        'ide/checkpoints/none     tests.metric07  1/2      7            3.667',
        'ide/checkpoints/none     tests.metric20  1/2      20           10.5',
        'oracle/checkpoints/none  tests.strict    1/1      1            0',
        '27 other scores unchanged on every step',
      ].join('\n'),
    );
    expect(regradeSummary([step(0, many, many)])).toBe('no score changed on any of the 1 steps');
  });
});
