import type { Score, Scorer, StepScoreContext } from '@longhaul/core';
import { describeScorer, type ScorerContext, scorerChecks } from '../src/index.js';
import { describeSuiteTeeth } from './support/failures.js';

/** A step scorer over a context that only carries the step's index. */
const scorer = (scores: (step: number) => Score[], version = '1.0.0'): Scorer => ({
  scope: 'step',
  version,
  score: async (ctx: StepScoreContext) => scores(ctx.step.index),
});

const good = scorer((step) => [
  { metric: 'pass_rate', value: 0.5, detail: { step, failed: ['case-1'] }, feedback: '1 of 2 cases fail' },
  { metric: 'strict', value: false },
  { metric: 'core', value: null },
]);

const context = (s: Scorer): ScorerContext => ({
  fixture: async () => ({ scorer: s, context: { step: { index: 2 } } as StepScoreContext }),
  metrics: ['pass_rate', 'strict'],
  deterministic: true,
});

const broken: [string, Scorer, string][] = [
  ['has no version', scorer(() => [], ' '), 'version'],
  ['names a metric with a space', scorer(() => [{ metric: 'pass rate', value: 1 }]), 'well-formed'],
  ['gives NaN', scorer(() => [{ metric: 'pass_rate', value: Number.NaN }]), 'well-formed'],
  [
    'gives one metric twice',
    scorer(() => [
      { metric: 'strict', value: 1 },
      { metric: 'strict', value: 0 },
    ]),
    'well-formed',
  ],
  [
    'puts a Map in its detail',
    scorer(() => [{ metric: 'strict', value: 1, detail: new Map() }]),
    'well-formed',
  ],
  ['leaves out a promised metric', scorer(() => [{ metric: 'pass_rate', value: 1 }]), 'promises'],
  [
    'gives random values',
    scorer(() => [
      { metric: 'pass_rate', value: Math.random() },
      { metric: 'strict', value: true },
    ]),
    'same way',
  ],
];

describeSuiteTeeth(
  'scorer',
  scorerChecks,
  () => context(good),
  broken.map(([what, s, fragment]) => [what, () => context(s), fragment]),
);

describeScorer('a correct step scorer', async () => context(good).fixture(), { metrics: ['strict'] });
