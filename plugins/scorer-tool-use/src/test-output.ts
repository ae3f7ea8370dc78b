/** A test's outcome as IDE-Bench's grader records it. */
export type TestStatus = 'PASSED' | 'FAILED' | 'SKIPPED' | 'ERROR' | 'XFAIL';

function normalize(word: string): TestStatus {
  return word === 'XPASS' ? 'PASSED' : (word as TestStatus);
}

/**
 * Per-test outcomes from a test run's output: pytest `-rA` lines (`PASSED name`, `name PASSED`),
 * jest/mocha markers (`✓ name`, `✕ name`), Go's `--- PASS: name`; else a `N passed, M failed`
 * summary, counted as anonymous tests.
 */
export function parseTestOutput(text: string): Map<string, TestStatus> {
  const tests = new Map<string, TestStatus>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    let match = /^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\s+(\S+)/.exec(line);
    if (match) {
      tests.set(match[2]!, normalize(match[1]!));
      continue;
    }
    match = /^(\S+::\S+)\s+(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b/.exec(line);
    if (match) {
      tests.set(match[1]!, normalize(match[2]!));
      continue;
    }
    match = /^([✓√✔]|[✕✗×✘])\s+(.+?)(?:\s+\(\d+\s*m?s\))?$/.exec(line);
    if (match) {
      tests.set(match[2]!, /[✓√✔]/.test(match[1]!) ? 'PASSED' : 'FAILED');
      continue;
    }
    match = /^--- (PASS|FAIL|SKIP): (\S+)/.exec(line);
    if (match)
      tests.set(match[2]!, match[1] === 'PASS' ? 'PASSED' : match[1] === 'FAIL' ? 'FAILED' : 'SKIPPED');
  }
  if (tests.size > 0) return tests;
  const passed = Number(/(\d+) passed/.exec(text)?.[1] ?? 0);
  const failed = Number(/(\d+) failed/.exec(text)?.[1] ?? 0) + Number(/(\d+) errors?\b/.exec(text)?.[1] ?? 0);
  for (let i = 0; i < passed; i++) tests.set(`passed#${i + 1}`, 'PASSED');
  for (let i = 0; i < failed; i++) tests.set(`failed#${i + 1}`, 'FAILED');
  return tests;
}

/** XFAIL counts as passing, SKIPPED as failing (as IDE-Bench's grader does). */
export function isPass(status: TestStatus): boolean {
  return status === 'PASSED' || status === 'XFAIL';
}
