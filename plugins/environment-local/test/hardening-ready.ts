import { it } from 'vitest';
import { hardeningProblem } from '../src/index.js';

/**
 * Whether the hardened-mode tests can run: bwrap and user namespaces. Without them the tests are
 * skipped with the reason, except in CI (CI set), where they must fail the run.
 */
export const hardeningMissing = await hardeningProblem();

if (hardeningMissing !== undefined && process.env.CI) {
  throw new Error(`CI is set and the hardened local sandbox tests cannot run: ${hardeningMissing}`);
}

/** Registers one skipped test that says why, when the host cannot harden. */
export function skipWithoutHardening(): boolean {
  if (hardeningMissing === undefined) return false;
  it.skip(`hardened local sandbox tests skipped: ${hardeningMissing}`, () => {});
  return true;
}
