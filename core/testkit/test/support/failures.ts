import { describe, expect, it } from 'vitest';
import { type Check, FakeEnvironment, type FakeSandbox, runChecks } from '../../src/index.js';

/** Names of the checks that failed. */
export async function failedChecks<Context>(
  checks: readonly Check<Context>[],
  context: Context,
): Promise<string[]> {
  const outcomes = await runChecks(checks, context);
  return outcomes.filter((outcome) => outcome.error !== undefined).map((outcome) => outcome.name);
}

/**
 * Tests of a suite: it passes a correct implementation, and each broken one (description, the
 * context over it, a fragment of the check it must fail) fails that check. Every check must be
 * the target of at least one broken implementation, so no rule goes untested.
 */
export function describeSuiteTeeth<Context>(
  kind: string,
  checks: readonly Check<Context>[],
  good: () => Context | Promise<Context>,
  broken: [description: string, context: () => Context | Promise<Context>, check: string][],
  options: { concurrent?: boolean } = {},
): void {
  const checkNamed = (fragment: string) => {
    const found = checks.find((c) => c.name.includes(fragment));
    if (!found) throw new Error(`no ${kind} check mentions "${fragment}"`);
    return found.name;
  };
  describe(`${kind} conformance suite`, () => {
    it(`passes a ${kind} that keeps every rule`, async () => {
      // With each failure's message, so a check that fails here says why.
      const outcomes = await runChecks(checks, await good());
      const failed = outcomes.filter((outcome) => outcome.error !== undefined);
      expect(failed.map((outcome) => `${outcome.name}: ${String(outcome.error)}`)).toEqual([]);
    });

    it('has a broken implementation below for every one of its checks', () => {
      expect(new Set(broken.map(([, , fragment]) => checkNamed(fragment))).size).toBe(checks.length);
    });

    const each = options.concurrent ? it.concurrent.each(broken) : it.each(broken);
    each(`fails a ${kind} that %s`, async (_, context, fragment) => {
      expect(await failedChecks(checks, await context())).toContain(checkNamed(fragment));
    });
  });
}

/** A fake sandbox over an empty workspace. */
export function openFakeSandbox(): Promise<FakeSandbox> {
  return new FakeEnvironment().open({
    runId: 'r',
    trialId: 't',
    purpose: 'agent',
    task: { id: 't', root: '/t' },
    needs: {},
  });
}
