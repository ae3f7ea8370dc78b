import { canonicalJson } from './normalize.js';

/** How loosely two JSON values may match. */
export interface JsonMatch {
  /** Absolute tolerance for numbers. */
  tolerance?: number;
  /** Objects of `actual` may have keys `expected` does not list (at every depth). */
  partial?: boolean;
  /** ISO-8601 date-time strings match when this close. */
  timestampToleranceMs?: number;
}

const dateTime = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function closeTimestamps(expected: string, actual: string, toleranceMs: number): boolean {
  if (!dateTime.test(expected) || !dateTime.test(actual)) return false;
  const difference = Math.abs(Date.parse(expected) - Date.parse(actual));
  return Number.isFinite(difference) && difference <= toleranceMs;
}

/**
 * The first place where `actual` differs from `expected`, as `$.path: reason`, or undefined when
 * they match. Object key order never matters; numbers match within `tolerance`.
 */
export function jsonDifference(
  expected: unknown,
  actual: unknown,
  match: JsonMatch = {},
  path = '$',
): string | undefined {
  if (kind(expected) !== kind(actual)) {
    return `${path}: expected ${kind(expected)} ${show(expected)}, got ${kind(actual)} ${show(actual)}`;
  }
  if (typeof expected === 'number') {
    return Math.abs(expected - (actual as number)) <= (match.tolerance ?? 0)
      ? undefined
      : `${path}: expected ${expected}, got ${actual}`;
  }
  if (Array.isArray(expected)) {
    const items = actual as unknown[];
    if (items.length !== expected.length) {
      return `${path}: expected ${expected.length} items, got ${items.length}`;
    }
    for (const [index, item] of expected.entries()) {
      const difference = jsonDifference(item, items[index], match, `${path}[${index}]`);
      if (difference) return difference;
    }
    return undefined;
  }
  if (expected && typeof expected === 'object') {
    const object = actual as Record<string, unknown>;
    const wanted = expected as Record<string, unknown>;
    const missing = Object.keys(wanted).filter((key) => !(key in object));
    if (missing.length) return `${path}: missing key ${show(missing.sort()[0])}`;
    const extra = match.partial ? [] : Object.keys(object).filter((key) => !(key in wanted));
    if (extra.length) return `${path}: unexpected key ${show(extra.sort()[0])}`;
    for (const key of Object.keys(wanted).sort()) {
      const difference = jsonDifference(wanted[key], object[key], match, `${path}.${key}`);
      if (difference) return difference;
    }
    return undefined;
  }
  if (
    typeof expected === 'string' &&
    match.timestampToleranceMs !== undefined &&
    closeTimestamps(expected, actual as string, match.timestampToleranceMs)
  ) {
    return undefined;
  }
  return expected === actual ? undefined : `${path}: expected ${show(expected)}, got ${show(actual)}`;
}

/** Every array, at every depth, in a canonical order: lists compared as multisets. */
export function sortLists(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(sortLists).sort((a, b) => canonicalJson(a).localeCompare(canonicalJson(b)));
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, sortLists(item)]));
  }
  return value;
}
