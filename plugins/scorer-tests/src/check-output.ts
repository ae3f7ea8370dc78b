import type { OutputExpectation } from '@longhaul/core';
// The patch module alone: the package's index loads every kind of diff (about 20 modules).
import { createTwoFilesPatch } from 'diff/lib/patch/create.js';
import { jsonDifference } from './json-difference.js';
import { canonicalJson, normalizeText } from './normalize.js';

export interface Check {
  /** What was checked: `exit code`, `stdout`, `stderr`, `file out.csv`. */
  target: string;
  passed: boolean;
  /** Why it failed, precisely (goes to the run store only). */
  reason?: string;
  /** Why it failed, without the hidden expected content (what feedback may show the agent). */
  summary?: string;
  /** Unified diff of expected vs actual (after normalization), when there is text to compare. */
  diff?: string;
}

function textDiff(target: string, expected: string, actual: string): string {
  return createTwoFilesPatch(`expected ${target}`, `actual ${target}`, expected, actual, '', '', {
    context: 3,
  });
}

function parseJsonLines(text: string): { values?: unknown[]; error?: string } {
  const values: unknown[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    try {
      values.push(JSON.parse(line));
    } catch {
      return { error: `line ${index + 1} is not valid JSON` };
    }
  }
  return { values };
}

function checkJson(target: string, expectation: OutputExpectation, actual: string): Check {
  let value: unknown;
  try {
    value = JSON.parse(actual);
  } catch (error) {
    return {
      target,
      passed: false,
      reason: `not valid JSON: ${(error as Error).message}`,
      summary: 'not valid JSON',
    };
  }
  const difference = jsonDifference(expectation.json, value, { tolerance: expectation.tolerance });
  if (!difference) return { target, passed: true };
  const diff = textDiff(target, canonicalJson(expectation.json, 2), canonicalJson(value, 2));
  return { target, passed: false, reason: difference, summary: 'JSON differs', diff };
}

function checkJsonLines(target: string, expectation: OutputExpectation, actual: string): Check {
  const parsed = parseJsonLines(actual);
  if (!parsed.values) return { target, passed: false, reason: parsed.error, summary: 'not valid JSON lines' };
  const order = (values: unknown[]) =>
    expectation.normalize?.includes('sortLines')
      ? [...values].sort((a, b) => canonicalJson(a).localeCompare(canonicalJson(b)))
      : values;
  const expected = order(expectation.jsonl ?? []);
  const values = order(parsed.values);
  const difference =
    values.length !== expected.length
      ? `expected ${expected.length} lines, got ${values.length}`
      : expected
          .map((item, index) =>
            jsonDifference(item, values[index], { tolerance: expectation.tolerance }, `line ${index + 1}`),
          )
          .find((found) => found !== undefined);
  if (!difference) return { target, passed: true };
  const lines = (items: unknown[]) => items.map((item) => `${canonicalJson(item)}\n`).join('');
  return {
    target,
    passed: false,
    reason: difference,
    summary: 'JSON lines differ',
    diff: textDiff(target, lines(expected), lines(values)),
  };
}

/** Checks one output (a stream or a file's content) against a case's expectation. */
export function checkOutput(target: string, expectation: OutputExpectation, actual: string): Check {
  if (expectation.json !== undefined || 'json' in expectation) return checkJson(target, expectation, actual);
  if (expectation.jsonl) return checkJsonLines(target, expectation, actual);
  const normalized = normalizeText(actual, expectation.normalize);
  if (expectation.regex !== undefined) {
    return new RegExp(expectation.regex).test(normalized)
      ? { target, passed: true }
      : { target, passed: false, reason: `does not match /${expectation.regex}/`, summary: 'no match' };
  }
  const expected = normalizeText(expectation.text ?? '', expectation.normalize);
  if (normalized === expected) return { target, passed: true };
  const diff = textDiff(target, expected, normalized);
  const firstDifferent = diff
    .split('\n')
    .find((line) => /^[-+][^-+]/.test(line) || line === '-' || line === '+');
  return {
    target,
    passed: false,
    reason: `text differs${firstDifferent ? ` (first: ${firstDifferent.slice(0, 80)})` : ''}`,
    summary: 'text differs',
    diff,
  };
}
