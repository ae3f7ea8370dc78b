import { afterAll, beforeAll, describe, it } from 'vitest';

/** One conformance requirement: a name that reads as a sentence, and the assertions behind it. */
export interface Check<Context> {
  name: string;
  run(context: Context): Promise<void>;
}

/** The check's name (for the report) and its error, when it failed. */
export interface CheckOutcome {
  name: string;
  error?: unknown;
}

/** Runs checks outside vitest's collector; used to show that a suite rejects a broken plugin. */
export async function runChecks<Context>(
  checks: readonly Check<Context>[],
  context: Context,
): Promise<CheckOutcome[]> {
  const outcomes: CheckOutcome[] = [];
  for (const check of checks) {
    try {
      await check.run(context);
      outcomes.push({ name: check.name });
    } catch (error) {
      outcomes.push({ name: check.name, error });
    }
  }
  return outcomes;
}

/** Registers a vitest `describe` block with one `it` per check, over a context made once. */
export function describeChecks<Context>(
  title: string,
  checks: readonly Check<Context>[],
  setup: () => Context | Promise<Context>,
  teardown?: (context: Context) => unknown,
  timeoutMs = 300_000,
): void {
  describe(title, () => {
    let context: Context | undefined;
    beforeAll(async () => {
      context = await setup();
    }, timeoutMs);
    afterAll(async () => {
      if (context !== undefined) await teardown?.(context);
    }, timeoutMs);
    for (const check of checks) {
      it(check.name, () => check.run(context as Context), timeoutMs);
    }
  });
}

/** Whether `error` carries the given class (by property, so copies of the kernel across packages agree). */
export function hasErrorClass(error: unknown, errorClass: string): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { errorClass?: unknown }).errorClass === errorClass
  );
}

/** Asserts that a promise rejects with a ClassifiedError of `errorClass`; says which call broke the rule. */
export async function expectClassified(
  what: string,
  promise: Promise<unknown>,
  errorClass: string,
): Promise<void> {
  let outcome: { rejected: boolean; error?: unknown };
  try {
    await promise;
    outcome = { rejected: false };
  } catch (error) {
    outcome = { rejected: true, error };
  }
  if (!outcome.rejected)
    throw new Error(`${what} resolved; it must reject with a ClassifiedError of class "${errorClass}"`);
  if (!hasErrorClass(outcome.error, errorClass)) {
    throw new Error(
      `${what} rejected with ${String(outcome.error)}; it must reject with a ClassifiedError of class "${errorClass}"`,
    );
  }
}

/**
 * Whether `value` is plain JSON data: null, booleans, finite numbers, strings, arrays and plain
 * objects of those (an `undefined` property counts as absent). Dates, Maps, functions and class
 * instances are not: they do not survive the trip through a file or a queue.
 */
export function isJsonValue(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJsonValue);
  if (typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every((v) => v === undefined || isJsonValue(v));
}
