import type { Score } from '@longhaul/core';
import type { ScoredCategory } from './cases.js';

export const scoredCategories: ScoredCategory[] = ['core', 'functionality', 'error', 'regression'];

export interface CaseResult {
  id: string;
  step: string;
  category: ScoredCategory;
  passed: boolean;
  reason?: string;
  durationMs: number;
}

function allPass(results: CaseResult[]): number | null {
  if (results.length === 0) return null;
  return results.every((result) => result.passed) ? 1 : 0;
}

/**
 * The step scores: strict / iso / core solves, pass rate and passed/total per category. With a
 * `failure` (the hidden tests could not run to the end because of the submission, or ran past
 * their time limit), the step is a failed one: strict, iso, core and pass rate 0, whatever the
 * tests that ran said; the counts keep those tests, and `detail.failure` says why.
 */
export function tallyScores(results: CaseResult[], feedback: string | undefined, failure?: string): Score[] {
  const passed = results.filter((result) => result.passed).length;
  const own = results.filter((result) => result.category !== 'regression');
  const failed = failure === undefined ? undefined : 0;
  const scores: Score[] = [
    {
      metric: 'strict',
      value: failed ?? allPass(results),
      detail: failure === undefined ? { cases: results } : { cases: results, failure },
      feedback,
    },
    { metric: 'iso', value: failed ?? allPass(own) },
    { metric: 'core', value: failed ?? allPass(results.filter((result) => result.category === 'core')) },
    { metric: 'pass_rate', value: failed ?? (results.length ? passed / results.length : null) },
  ];
  for (const category of scoredCategories) {
    const inCategory = results.filter((result) => result.category === category);
    scores.push(
      { metric: `${category}.passed`, value: inCategory.filter((result) => result.passed).length },
      { metric: `${category}.total`, value: inCategory.length },
    );
  }
  return scores;
}
