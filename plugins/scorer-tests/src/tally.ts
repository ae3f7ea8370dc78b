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

/** The step scores: strict / iso / core solves, pass rate and passed/total per category. */
export function tallyScores(results: CaseResult[], feedback: string | undefined): Score[] {
  const passed = results.filter((result) => result.passed).length;
  const own = results.filter((result) => result.category !== 'regression');
  const scores: Score[] = [
    { metric: 'strict', value: allPass(results), detail: { cases: results }, feedback },
    { metric: 'iso', value: allPass(own) },
    { metric: 'core', value: allPass(results.filter((result) => result.category === 'core')) },
    { metric: 'pass_rate', value: results.length ? passed / results.length : null },
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
