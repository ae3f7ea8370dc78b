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

/**
 * Why each test or file did not pass, by node id (a file for a collection error): the message of
 * the summary line (`FAILED id - ModuleNotFoundError: …`) or, for a file that failed to collect,
 * the last `E   ` line of its `ERROR collecting` block (the summary line has none).
 */
export function parsePytestMessages(output: string): Map<string, string> {
  const messages = new Map<string, string>();
  const lines = output.split('\n');
  let collecting: string | undefined;
  for (const line of lines) {
    const block = /^_+ ERROR collecting (.+?) _+$/.exec(line);
    if (block) {
      collecting = block[1]!;
      continue;
    }
    if (/^(=+ .* =+|_+ .* _+)$/.test(line)) collecting = undefined;
    if (collecting !== undefined && line.startsWith('E   ')) messages.set(collecting, line.slice(4).trim());
  }
  const start = output.search(/^=+ short test summary info =+$/m);
  if (start < 0) return messages;
  for (const line of output.slice(start).split('\n').slice(1)) {
    if (/^=+ .* =+$/.test(line)) break;
    const match = /^(?:FAILED|ERROR) (.+?) - (.+)$/.exec(line.trimEnd());
    if (match && !messages.has(match[1]!)) messages.set(match[1]!, match[2]!);
  }
  return messages;
}

/** Reasons that say the environment, not the PR, made a test fail: a warning when common. */
export const environmentReasons = ['import-error', 'collection-error', 'missing-file'] as const;

/**
 * Why a test that does not pass with the fix is dropped, from pytest's message: a module that
 * cannot be imported (`import-error: No module named 'pytz'`), a file or program that is not
 * there (`missing-file: …`), else `fails with the fix: <message>`.
 */
export function failureReason(message: string | undefined, collection = false): string {
  const text = (message ?? '').trim();
  const imported = /^(?:ModuleNotFoundError|ImportError): (.*)$/.exec(text);
  if (imported) return `import-error: ${imported[1]}`;
  if (/^FileNotFoundError: /.test(text)) return `missing-file: ${text.replace(/^FileNotFoundError: /, '')}`;
  if (collection) return `collection-error: ${text || 'the module could not be collected'}`;
  return text ? `fails with the fix: ${text}` : 'fails with the fix';
}

/** Whether a dropped test's reason blames the environment (see environmentReasons). */
export const isEnvironmentReason = (reason: string) =>
  environmentReasons.some((kind) => reason.startsWith(`${kind}:`));
