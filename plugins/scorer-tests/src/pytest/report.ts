/** One test as the judge's plugin reported it, counted once however many phases failed. */
export interface PytestTest {
  /** pytest's node id, relative to the suite's rootdir (`.evaluation_tests/test_x.py::TestA::test_b[1]`). */
  nodeid: string;
  /** The file part of the node id. */
  file: string;
  /** The outcome as SlopCodeBench reads it from pytest-json-report (see `outcomeOf`). */
  outcome: 'passed' | 'failed' | 'error' | 'skipped';
  /** pytest's keywords of the test, in order (its first report's). */
  keywords: string[];
  /** Why it did not pass: the first failing phase's message (call, then setup, then teardown), or the skip reason. */
  message?: string;
  /** Setup, call and teardown together. */
  durationMs: number;
}

/** What the plugin's report says about the run as a whole. */
export interface PytestRun {
  /** The plugin was loaded and configured: pytest itself started. */
  started: boolean;
  /** pytest ended its session; absent when it was killed or stopped first. */
  finished?: { exitstatus: number; collected: number };
  /** Modules or folders that could not be collected, with pytest's message. */
  collectErrors: { nodeid: string; message: string }[];
  /** Every test that reported at least one phase, in the order they first reported. */
  tests: PytestTest[];
}

interface Phase {
  when: string;
  category: string;
  message?: string;
  duration: number;
}

/**
 * A test's outcome as pytest-json-report sets it and SlopCodeBench maps it: `passed` unless a
 * phase reports another category (the last one wins: a test that fails and then errors in
 * teardown is `error`); `xfailed` counts as skipped, `xpassed` as passed, anything unknown as an
 * error.
 */
export function outcomeOf(categories: readonly string[]): PytestTest['outcome'] {
  let outcome = 'passed';
  for (const category of categories) if (category !== 'passed' && category !== '') outcome = category;
  const mapped: Record<string, PytestTest['outcome']> = {
    passed: 'passed',
    failed: 'failed',
    skipped: 'skipped',
    error: 'error',
    xfailed: 'skipped',
    xpassed: 'passed',
  };
  return mapped[outcome] ?? 'error';
}

/** The message upstream shows for a test: the first phase that failed, call before setup and teardown. */
function messageOf(phases: readonly Phase[], outcome: PytestTest['outcome']): string | undefined {
  if (outcome === 'passed') return undefined;
  for (const when of ['call', 'setup', 'teardown']) {
    const phase = phases.find(
      (item) => item.when === when && item.category !== 'passed' && item.category !== '',
    );
    if (phase?.message !== undefined && phase.category !== 'skipped' && phase.category !== 'xfailed')
      return phase.message;
  }
  return phases.find((item) => item.message !== undefined)?.message;
}

/**
 * Reads the JSON lines the judge's plugin wrote. A last line cut short (pytest killed while
 * writing) is left out; every complete line counts.
 */
export function parseReport(text: string): PytestRun {
  const run: PytestRun = { started: false, collectErrors: [], tests: [] };
  const phases = new Map<string, { keywords: string[]; phases: Phase[] }>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (record.event === 'start') run.started = true;
    else if (record.event === 'finish')
      run.finished = { exitstatus: Number(record.exitstatus), collected: Number(record.collected) };
    else if (record.event === 'collect-error')
      run.collectErrors.push({ nodeid: String(record.nodeid ?? ''), message: String(record.message ?? '') });
    else if (record.event === 'report') {
      const nodeid = String(record.nodeid ?? '');
      let test = phases.get(nodeid);
      if (!test) {
        test = { keywords: Array.isArray(record.keywords) ? record.keywords.map(String) : [], phases: [] };
        phases.set(nodeid, test);
      }
      test.phases.push({
        when: String(record.when ?? ''),
        category: String(record.category ?? ''),
        ...(typeof record.message === 'string' ? { message: record.message } : {}),
        duration: Number(record.duration ?? 0),
      });
    }
  }
  for (const [nodeid, test] of phases) {
    const outcome = outcomeOf(test.phases.map((phase) => phase.category));
    const message = messageOf(test.phases, outcome);
    run.tests.push({
      nodeid,
      file: nodeid.split('::')[0] ?? nodeid,
      outcome,
      keywords: test.keywords,
      ...(message === undefined ? {} : { message }),
      durationMs: Math.round(test.phases.reduce((sum, phase) => sum + phase.duration, 0) * 1000),
    });
  }
  return run;
}
