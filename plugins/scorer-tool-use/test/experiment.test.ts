import type { ExperimentScoreContext } from '@longhaul/core';
import { describeScorer } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import { passAtKOptions, toolUseOptions } from '../src/options.js';
import { PassAtKScorer } from '../src/pass-at-k-scorer.js';
import { ToolUseScorer } from '../src/tool-use-scorer.js';
import { edit, iteration, read, turn } from './events.js';
import { toolUseContext, trial } from './records.js';

function byMetric(scores: { metric: string; value: unknown; condition?: string }[]) {
  return Object.fromEntries(scores.map((s) => [s.metric, s.value]));
}

describe('the pass-at-k scorer', () => {
  it('reports first-attempt pass@1, unbiased pass@k with Wilson intervals, tokens per success and consistency', async () => {
    // task a: 1 0 0 0 0; task b: 0 0 0 0 0; task c: 1 1 1 1 1; task d: 0 1 0 0 0
    const outcomes: Record<string, boolean[]> = {
      a: [true, false, false, false, false],
      b: [false, false, false, false, false],
      c: [true, true, true, true, true],
      d: [false, true, false, false, false],
    };
    const trials = Object.entries(outcomes).flatMap(([task, runs]) =>
      runs.map((ok, i) => trial(task, i, ok)),
    );
    const scores = byMetric(
      await new PassAtKScorer(passAtKOptions.parse({})).score({ trials } as ExperimentScoreContext),
    );
    expect(scores.tasks).toBe(4);
    expect(scores.first_attempt).toBe(0.5);
    expect(scores.pass_at_1).toBeCloseTo((0.2 + 0 + 1 + 0.2) / 4, 10);
    expect(scores.pass_at_5).toBe(0.75);
    expect(scores['pass_at_5.wilson_low']).toBeLessThan(0.75);
    expect(scores['pass_at_5.wilson_high']).toBeGreaterThan(0.75);
    expect(scores.success_rate).toBeCloseTo(7 / 20, 10);
    expect(scores.tokens_per_success).toBe(1000);
    expect(scores.efficiency).toBeCloseTo(75 / 1, 10);
    expect(scores['consistency.sigma']).toBeGreaterThan(0);
    expect(scores['consistency.icc']).toBeGreaterThan(0);
  });

  it('pools tool-use scores: read-to-edit, failure-mode shares and transition probabilities', async () => {
    const trials = [
      trial('a', 0, false, {
        'tool-use.calls': 3,
        'tool-use.reads': 2,
        'tool-use.edits': 1,
        'tool-use.iterations': 3,
        'tool-use.failure.thrashing': true,
        'tool-use.bigram.read_file--read_file': 1,
        'tool-use.bigram.read_file--edit_file': 1,
      }),
      trial('b', 0, true, {
        'tool-use.calls': 2,
        'tool-use.reads': 1,
        'tool-use.edits': 1,
        'tool-use.iterations': 2,
        'tool-use.bigram.read_file--edit_file': 2,
      }),
    ];
    const scores = byMetric(
      await new PassAtKScorer(passAtKOptions.parse({ k: [1] })).score({ trials } as ExperimentScoreContext),
    );
    expect(scores.read_to_edit).toBe(1.5);
    expect(scores['failure.failed_trials']).toBe(1);
    expect(scores['failure.thrashing']).toBe(1);
    expect(scores['failure.context_loss']).toBe(0);
    expect(scores['transition.read_file--edit_file']).toBe(0.75);
    expect(scores['transition.read_file--read_file']).toBe(0.25);
  });

  it('keeps conditions apart', async () => {
    const trials = [trial('a', 0, true, {}, 'x'), trial('a', 0, false, {}, 'y')];
    const scores = await new PassAtKScorer(passAtKOptions.parse({ k: [1] })).score({
      trials,
    } as ExperimentScoreContext);
    expect(scores.filter((s) => s.metric === 'first_attempt').map((s) => [s.condition, s.value])).toEqual([
      ['x', 1],
      ['y', 0],
    ]);
  });
});

describeScorer(
  'pass-at-k',
  async () => ({
    scorer: new PassAtKScorer(passAtKOptions.parse({})),
    context: { trials: [0, 1, 2, 3, 4].map((i) => trial('a', i, i % 2 === 0)) } as ExperimentScoreContext,
  }),
  { metrics: ['tasks', 'first_attempt', 'pass_at_5', 'success_rate'] },
);

describeScorer(
  'tool-use',
  async () => ({
    scorer: new ToolUseScorer(toolUseOptions.parse({})),
    context: toolUseContext(turn('go', [...iteration(read('a.py')), ...iteration(edit('a.py'))])),
  }),
  { metrics: ['calls', 'read_to_edit', 'success', 'failure.premature_editing', 'intent.alignment'] },
);
