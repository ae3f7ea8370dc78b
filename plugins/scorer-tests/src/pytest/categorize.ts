import type { PytestSuite } from '@longhaul/core';
import type { ScoredCategory } from '../cases.js';

/**
 * SlopCodeBench's rule, in priority order: a test from an earlier checkpoint's file is regression
 * whatever its markers; then the `error` marker; then the `regression` marker; then the first
 * marker that the problem's config maps to a group; then `functionality`; an unmarked test is core.
 */
export function categorize(
  test: { file: string; markers: readonly string[] },
  currentFile: string,
  custom: PytestSuite['markers'],
): ScoredCategory {
  if (test.file !== currentFile) return 'regression';
  if (test.markers.includes('error')) return 'error';
  if (test.markers.includes('regression')) return 'regression';
  const configured = test.markers.find((marker) => custom[marker] !== undefined);
  if (configured !== undefined) return custom[configured]!;
  if (test.markers.includes('functionality')) return 'functionality';
  return 'core';
}
