import { describe, expect, it } from 'vitest';
import { unfinishedReason, unfinishedSummary } from '../src/progress/unfinished-trials.js';

const trial = (status: string, steps: string[] = []) =>
  ({ status, steps: steps.map((s) => ({ status: s })) }) as unknown as Parameters<typeof unfinishedReason>[0];

describe('unfinished trials', () => {
  it('names how many trials did not finish and why, most frequent first', () => {
    const records = [
      trial('ok', ['ok']),
      trial('error:model', ['error:model']),
      trial('cancelled', ['ok', 'cancelled']),
      trial('failed', ['failed']),
      trial('error:model', ['error:model', 'skipped']),
    ];
    expect(unfinishedSummary(records, 'runs/x')).toBe(
      '3 of 5 trials did not finish: 2 error:model, 1 cancelled — rates are over scored steps; see longhaul report runs/x',
    );
  });

  it('counts a trial whose step errored though the trial went on, and one left running', () => {
    expect(unfinishedReason(trial('ok', ['error:scorer', 'ok']))).toBe('error:scorer');
    expect(unfinishedReason(trial('running', ['ok']))).toBe('cancelled');
    expect(unfinishedReason(trial('timeout', ['ok', 'timeout']))).toBeUndefined();
  });

  it('says nothing when every trial finished, whatever its score', () => {
    expect(unfinishedSummary([trial('ok', ['ok']), trial('budget', ['budget'])], 'runs/x')).toBeUndefined();
  });
});
