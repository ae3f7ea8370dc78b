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
  timeoutMs = 30_000,
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

export function isJsonValue(value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(JSON.stringify(value))) === JSON.stringify(value);
  } catch {
    return false;
  }
}
