/** How one test ended in one run. */
export type Outcome = 'passed' | 'failed' | 'error' | 'skipped' | 'xfailed' | 'xpassed';

const words: Record<string, Outcome> = {
  PASSED: 'passed',
  FAILED: 'failed',
  ERROR: 'error',
  SKIPPED: 'skipped',
  XFAIL: 'xfailed',
  XPASS: 'xpassed',
};

/**
 * Test outcomes by pytest node id from the short summary that `pytest -rA` prints
 * (`PASSED tests/test_x.py::test_a`, `FAILED tests/test_x.py::test_b - message`). A collection
 * error is reported against the file (`ERROR tests/test_x.py - ImportError`); its tests are
 * simply absent, which callers read as "did not pass".
 */
export function parsePytestSummary(output: string): Map<string, Outcome> {
  const results = new Map<string, Outcome>();
  const start = output.search(/^=+ short test summary info =+$/m);
  if (start < 0) return results;
  for (const line of output.slice(start).split('\n').slice(1)) {
    if (/^=+ .* =+$/.test(line)) break;
    const match = /^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (.+)$/.exec(line.trimEnd());
    if (!match) continue;
    const outcome = words[match[1]!]!;
    if (outcome === 'skipped' && match[2]!.startsWith('[')) continue;
    const cut = match[2]!.indexOf(' - ');
    const id = outcome === 'passed' || cut < 0 ? match[2]! : match[2]!.slice(0, cut);
    results.set(id, outcome);
  }
  return results;
}
