import {
  bootstrapMean,
  countOutcomes,
  formatInterval,
  formatOutcomeCounts,
  leftOutNote,
  stepOutcome,
  trialStepOutcomes,
} from '@longhaul/core';
import { describe, expect, it } from 'vitest';

describe('stepOutcome', () => {
  it('counts a step by how it ended, and a step never reached by how its trial ended', () => {
    expect(stepOutcome({ status: 'ok' }, 'ok')).toEqual({ outcome: 'scored' });
    expect(stepOutcome({ status: 'failed' }, 'failed')).toEqual({ outcome: 'scored' });
    expect(stepOutcome({ status: 'timeout' }, 'timeout')).toEqual({ outcome: 'scored' });
    expect(stepOutcome({ status: 'error:model' }, 'error:model')).toEqual({
      outcome: 'errored',
      errorClass: 'model',
    });
    expect(stepOutcome({ status: 'skipped' }, 'error:sandbox')).toEqual({
      outcome: 'errored',
      errorClass: 'sandbox',
    });
    expect(stepOutcome(undefined, 'budget')).toEqual({ outcome: 'scored' });
    expect(stepOutcome({ status: 'cancelled' }, 'cancelled')).toEqual({ outcome: 'cancelled' });
    expect(stepOutcome(undefined, 'running')).toEqual({ outcome: 'cancelled' });
    expect(stepOutcome(undefined, undefined)).toEqual({ outcome: 'missing' });
  });

  it('counts the planned steps of trials with their error classes', () => {
    const planned = [{ index: 0 }, { index: 1 }, { index: 2 }];
    const counts = countOutcomes([
      ...trialStepOutcomes(planned, {
        status: 'error:model',
        steps: [
          { index: 0, status: 'ok' },
          { index: 1, status: 'error:model' },
        ] as never,
      }),
      ...trialStepOutcomes(planned, { status: 'cancelled', steps: [] }),
      ...trialStepOutcomes(planned, undefined),
      stepOutcome({ status: 'error:sandbox' }, 'error:sandbox'),
    ]);
    expect(counts).toEqual({
      scored: 1,
      errored: 3,
      cancelled: 3,
      missing: 3,
      errorClasses: { model: 2, sandbox: 1 },
    });
    expect(formatOutcomeCounts(counts)).toBe('1 scored, 3 errored (2 model, 1 sandbox), 3 cancelled');
    expect(formatOutcomeCounts(countOutcomes([{ outcome: 'scored' }]))).toBe('1 scored');
    expect(formatOutcomeCounts(countOutcomes([{ outcome: 'errored', errorClass: 'model' }]))).toBe(
      '0 scored, 1 errored (model)',
    );
  });
});

describe('leftOutNote', () => {
  it('says, per condition with steps not scored, how many the rates leave out and why', () => {
    const counts = countOutcomes([
      { outcome: 'scored' },
      { outcome: 'errored', errorClass: 'scorer' },
      { outcome: 'errored', errorClass: 'vendor_thing' },
      { outcome: 'cancelled' },
    ]);
    const whole = countOutcomes([{ outcome: 'scored' }, { outcome: 'scored' }]);
    expect(
      leftOutNote([
        { condition: 'a', steps: 4, counts },
        { condition: 'b', steps: 2, counts: whole },
      ]),
    ).toBe(
      [
        "not scored, so left out of the rates and means (each step's scores.json says what failed):",
        "  a: 3 of 4 steps: 1 error:scorer (a scorer failed), 1 error:vendor_thing (a plugin's own fault class), 1 cancelled (stopped by the user or the runner)",
      ].join('\n'),
    );
    expect(leftOutNote([{ condition: 'b', steps: 2, counts: whole }])).toBeUndefined();
    expect(leftOutNote([{ condition: 'b', steps: 3, counts: whole, unreached: 1 }])).toMatch(
      /\n {2}b: 1 of 3 steps: 1 never reached \(a limit ended the trial before\)$/,
    );
  });
});

describe('formatInterval', () => {
  const two = (value: number) => value.toFixed(2);
  it('prints an interval only where two or more values stand behind the mean', () => {
    expect(formatInterval(bootstrapMean([[1]]), two)).toBe('1.00 n=1');
    expect(formatInterval(bootstrapMean([[1], [0]]), two)).toMatch(/^0\.50 \[0\.\d\d, 1\.00\]$/);
    expect(formatInterval(bootstrapMean([[]]), two)).toBe('–');
    expect(formatInterval({ mean: 0.5, low: 0.25, high: 0.75, n: 4, skipped: 3 }, two)).toBe(
      '0.50 [0.25, 0.75] (3 skipped)',
    );
  });
});
