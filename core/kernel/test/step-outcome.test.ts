import {
  bootstrapMean,
  countOutcomes,
  formatInterval,
  formatOutcomeCounts,
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
