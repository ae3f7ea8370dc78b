import type { PytestSuite } from '@longhaul/core';
import type { ScoredCategory } from '../cases.js';

/**
 * SlopCodeBench's rule: `error` marker > a test of an earlier checkpoint's file (regression) >
 * a custom marker's group > `functionality` marker > core (unmarked).
 */
export function categorize(
  test: { file: string; markers: readonly string[] },
  currentFile: string,
  custom: PytestSuite['markers'],
): ScoredCategory {
  const groups = test.markers.map((marker) => custom[marker]).filter((group) => group !== undefined);
  if (test.markers.includes('error') || groups.includes('error')) return 'error';
  if (test.file !== currentFile || groups.includes('regression')) return 'regression';
  if (groups.includes('functionality') || test.markers.includes('functionality')) return 'functionality';
  return 'core';
}
