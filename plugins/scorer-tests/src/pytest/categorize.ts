import type { PytestSuite } from '@longhaul/core';
import type { ScoredCategory } from '../cases.js';

/** The markers SlopCodeBench's runner always declares, before a problem's own. */
export const builtinMarkers = ['error', 'functionality', 'regression'] as const;

/**
 * The checkpoint a test belongs to, from its file as SlopCodeBench's runner reads it: the first
 * `test_<name>.py` in the path (`test_checkpoint_2.py` → `checkpoint_2`); without one, the
 * checkpoint being scored.
 */
export function checkpointOf(file: string, current: string): string {
  return /test_([^/]+)\.py/.exec(file)?.[1] ?? current;
}

/**
 * The markers a test is categorized by: pytest's keywords of the test (its markers, but also its
 * name, its parametrize id, its class and module) that are built-in or the problem's markers, in
 * the keywords' order. A parametrize id `error` therefore counts as the `error` marker, as it does
 * upstream, which reads pytest-json-report's keywords the same way.
 */
export function markersOf(keywords: readonly string[], custom: PytestSuite['markers']): string[] {
  const known = new Set<string>([...builtinMarkers, ...Object.keys(custom)]);
  return keywords.filter((keyword) => known.has(keyword));
}

/**
 * SlopCodeBench's rule (its runner's `_determine_group_type`), in priority order: a test of an
 * earlier checkpoint is regression whatever its markers; then `error`; then `regression`; then the
 * first marker the problem's config gives a group; then `functionality`; else core.
 */
export function categorize(
  test: { checkpoint: string; markers: readonly string[] },
  current: string,
  custom: PytestSuite['markers'],
): ScoredCategory {
  if (test.checkpoint !== current) return 'regression';
  if (test.markers.includes('error')) return 'error';
  if (test.markers.includes('regression')) return 'regression';
  const configured = test.markers.find((marker) => custom[marker] !== undefined);
  if (configured !== undefined) return custom[configured]!;
  if (test.markers.includes('functionality')) return 'functionality';
  return 'core';
}
