import type { HttpExpectation } from '@longhaul/core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Check } from '../check-output.js';
import { jsonDifference, sortLists } from '../json-difference.js';

export interface HttpResponseData {
  status: number;
  headers: Record<string, string>;
  body: string;
}

// Schemas may declare draft-07 or 2020-12; strict mode off so a schema's unknown keywords
// (titles, examples, vendor keys) do not fail a case.
const ajv = new Ajv2020({ strict: false, allErrors: false });
(addFormats as unknown as (instance: Ajv2020) => void)(ajv);

/** Replaces the string "{{now}}" anywhere in expected data with `now` (ISO-8601). */
function withNow(value: unknown, now: string): unknown {
  if (value === '{{now}}') return now;
  if (Array.isArray(value)) return value.map((item) => withNow(item, now));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withNow(item, now)]));
  }
  return value;
}

function parseBody(body: string): { value?: unknown; error?: string } {
  try {
    return { value: JSON.parse(body) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function checkBody(expect: HttpExpectation, response: HttpResponseData, now: string): Check | undefined {
  const target = 'body';
  if (expect.text !== undefined) {
    return response.body === expect.text
      ? { target, passed: true }
      : {
          target,
          passed: false,
          reason: `expected text ${JSON.stringify(expect.text).slice(0, 80)}`,
          summary: 'text differs',
        };
  }
  const wanted = 'json' in expect ? expect.json : 'partial' in expect ? expect.partial : undefined;
  if (wanted === undefined && !expect.schema) return undefined;
  const parsed = parseBody(response.body);
  if (parsed.error !== undefined) {
    return { target, passed: false, reason: `not valid JSON: ${parsed.error}`, summary: 'not valid JSON' };
  }
  if (expect.schema) {
    const validate = ajv.compile(expect.schema);
    if (validate(parsed.value)) return { target, passed: true };
    const first = validate.errors?.[0];
    const reason = `does not match the schema: ${first?.instancePath || '$'} ${first?.message ?? ''}`.trim();
    return { target, passed: false, reason, summary: 'does not match the schema' };
  }
  const sort = expect.normalize?.includes('sortLists') ? sortLists : (value: unknown) => value;
  const difference = jsonDifference(sort(withNow(wanted, now)), sort(parsed.value), {
    partial: 'partial' in expect,
    tolerance: expect.tolerance,
    timestampToleranceMs: expect.timestampToleranceMs,
  });
  return difference
    ? { target, passed: false, reason: difference, summary: 'JSON differs' }
    : { target, passed: true };
}

/** Checks one response against a request's `expect`: status, headers, then body. */
export function checkResponse(expect: HttpExpectation, response: HttpResponseData, now: string): Check[] {
  const checks: Check[] = [];
  checks.push(
    response.status === expect.status
      ? { target: 'status', passed: true }
      : {
          target: 'status',
          passed: false,
          reason: `expected ${expect.status}, got ${response.status}`,
          summary: `expected ${expect.status}, got ${response.status}`,
        },
  );
  for (const [name, pattern] of Object.entries(expect.headers ?? {})) {
    const value = response.headers[name.toLowerCase()];
    const target = `header ${name}`;
    checks.push(
      value !== undefined && new RegExp(pattern).test(value)
        ? { target, passed: true }
        : {
            target,
            passed: false,
            reason: value === undefined ? 'missing' : `${JSON.stringify(value)} does not match /${pattern}/`,
            summary: value === undefined ? 'missing' : 'differs',
          },
    );
  }
  const body = checkBody(expect, response, now);
  if (body) checks.push(body);
  return checks;
}
