import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ClassifiedError,
  type ExecResult,
  type JudgeArea,
  type PytestSuite,
  readDirectoryFiles,
  type Sandbox,
  type SnapshotRef,
  type StepScoreContext,
} from '@longhaul/core';
import type { CaseResult } from '../tally.js';
import { categorize, checkpointOf, markersOf } from './categorize.js';
import { type PytestRun, type PytestTest, parseReport } from './report.js';
import { installSuite, layout, pytestArgv, pytestEnv } from './suite-layout.js';

/** What one run of the suite gave: per-test results, and why the run as a whole failed, if it did. */
export interface PytestOutcome {
  results: CaseResult[];
  /**
   * Set when the checkpoint fails whatever its tests say: the suite ran past its time limit, or the
   * run broke (pytest killed, collection or session failed) with a judge that works.
   */
  failure?: string;
}

/** How a run went, before anyone is blamed. */
type RunVerdict =
  | { kind: 'ran'; run: PytestRun }
  | { kind: 'timeout'; run: PytestRun; reason: string }
  | { kind: 'broken'; run: PytestRun; reason: string; summary: string };

const exitMeaning: Record<number, string> = {
  2: 'interrupted: collection failed or the session was stopped',
  3: 'internal error',
  4: 'usage error',
  5: 'no tests collected',
};

function tail(text: string, lines = 15): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}

/** pytest-timeout's failure message, e.g. "Failed: Timeout >10.0s". */
const testTimeout = /^Failed: Timeout >/;

/** Why a test did not pass; a test stopped by the per-test time limit has a reason of its own. */
function reasonOf(test: PytestTest): string {
  if (test.message !== undefined && testTimeout.test(test.message)) {
    return `timeout: ${test.message.replace(/^Failed: /, '')} (the problem's per-test timeout)`;
  }
  return `${test.outcome}: ${test.message ?? ''}`.trim();
}

function judgeOf(sandbox: Sandbox): JudgeArea {
  if (sandbox.judge === undefined)
    throw new ClassifiedError(
      'scorer',
      `the environment's sandbox ${sandbox.id} has no judge area (Sandbox.judge): pytest suites need one`,
    );
  return sandbox.judge;
}

/**
 * Reads what a run left and says how it went. Upstream counts a run whose pytest exits 2 to 5 or
 * collects nothing as an infrastructure failure, which fails the checkpoint; a run that never
 * finished (pytest killed) has no report there at all. Both are `broken` here; who broke it is
 * decided by the caller.
 */
function verdictOf(result: ExecResult, run: PytestRun, suite: PytestSuite): RunVerdict {
  if (result.timedOut) {
    const seconds = Math.round(suite.timeoutMs / 1000);
    return {
      kind: 'timeout',
      run,
      reason: `the suite did not finish within its time limit of ${seconds} s (the scbench source's suiteTimeoutSeconds)`,
    };
  }
  const errors = run.collectErrors.map((item) => `${item.nodeid || '<session>'}: ${tail(item.message, 8)}`);
  if (!run.finished) {
    const how = result.exitCode === null ? 'killed by a signal' : `exit code ${result.exitCode}`;
    return {
      kind: 'broken',
      run,
      summary: `pytest ended before its session finished (${how})`,
      reason: `pytest ended before its session finished (${how}):\n${tail(result.stdout + result.stderr)}`,
    };
  }
  const { exitstatus, collected } = run.finished;
  if (exitstatus in exitMeaning || collected === 0) {
    const meaning = exitMeaning[exitstatus] ?? 'no tests collected';
    return {
      kind: 'broken',
      run,
      summary: `pytest exited with ${exitstatus} (${meaning})`,
      reason: `pytest exited with ${exitstatus} (${meaning})${errors.length ? `:\n${errors.join('\n')}` : `:\n${tail(result.stdout + result.stderr)}`}`,
    };
  }
  return { kind: 'ran', run };
}

/** The per-test results of a run, categorized as upstream categorizes them. */
function resultsOf(run: PytestRun, suite: PytestSuite, index: number): CaseResult[] {
  const current = suite.checkpoints[index]!.name;
  const prefix = `${layout.tests.slice(layout.root.length + 1)}/`;
  return run.tests.map((test) => {
    const checkpoint = checkpointOf(test.file, current);
    const category = categorize(
      { checkpoint, markers: markersOf(test.keywords, suite.markers) },
      current,
      suite.markers,
    );
    const id = test.nodeid.startsWith(prefix) ? test.nodeid.slice(prefix.length) : test.nodeid;
    return {
      id: `${current}/${category}/${id}`,
      step: suite.checkpoints.some((item) => item.name === checkpoint) ? checkpoint : current,
      category,
      // A skipped test stays in the total and does not pass, as upstream counts it.
      passed: test.outcome === 'passed',
      ...(test.outcome === 'passed' ? {} : { reason: reasonOf(test) }),
      durationMs: test.durationMs,
    };
  });
}

/** Runs the suite of the checkpoint at `index` over `from`, keeping the raw run in `outDir`. */
async function runOnce(
  ctx: StepScoreContext,
  suite: PytestSuite,
  from: SnapshotRef,
  outDir: string,
): Promise<RunVerdict> {
  const index = ctx.step.index;
  const sandbox = await ctx.openSandbox(from);
  try {
    const judge = judgeOf(sandbox);
    await installSuite(judge, suite, index);
    const argv = pytestArgv(judge, suite, index);
    // pytest runs as root (the judge): only it writes the report; the program under test is
    // started through the entrypoint, which `confine` made run as the agent.
    const result = await sandbox.exec(argv, {
      user: 'root',
      env: pytestEnv(judge, suite, index),
      timeoutMs: suite.timeoutMs,
      signal: ctx.signal,
      maxOutputBytes: 4 * 1_048_576,
    });
    ctx.signal.throwIfAborted();
    await mkdir(outDir, { recursive: true });
    await writeFile(join(outDir, 'pytest.log'), `$ ${argv.join(' ')}\n\n${result.stdout}\n${result.stderr}`);
    const text = await judge
      .readFile(layout.report)
      .then((bytes) => Buffer.from(bytes).toString('utf8'))
      .catch(() => '');
    await writeFile(join(outDir, 'report.jsonl'), text);
    const run = parseReport(text);
    if (!run.started) {
      // Nothing of the submission runs before the plugin is configured: a judge that cannot start.
      throw new ClassifiedError(
        'scorer',
        `pytest did not start for ${suite.checkpoints[index]!.name} of task ${ctx.task.id} (exit code ${result.exitCode}):\n${tail(result.stdout + result.stderr)}`,
      );
    }
    return verdictOf(result, run, suite);
  } finally {
    await sandbox.close();
  }
}

/**
 * Runs the step's pytest suite (its own file, plus earlier checkpoints' files as regression) in a
 * sandbox over the step's snapshot. A run that broke is a failed checkpoint when the judge works,
 * which `judgeWorks` decides (with the reference solution); a scorer fault otherwise.
 */
export async function runPytestStep(
  ctx: StepScoreContext,
  suite: PytestSuite,
  judgeWorks: (check: () => Promise<string | undefined>) => Promise<string | undefined>,
): Promise<PytestOutcome> {
  const index = ctx.step.index;
  if (!suite.checkpoints[index]) {
    throw new ClassifiedError(
      'scorer',
      `the pytest suite of task ${ctx.task.id} has no checkpoint for step ${index + 1}`,
    );
  }
  const verdict = await runOnce(ctx, suite, ctx.snapshot, ctx.outDir);
  const results = resultsOf(verdict.run, suite, index);
  if (verdict.kind === 'ran') return { results };
  if (verdict.kind === 'timeout') return { results, failure: verdict.reason };
  if (ctx.step.solution === undefined)
    return { results, failure: `${verdict.reason}\n(no reference solution to tell a broken judge apart)` };
  const fault = await judgeWorks(() => referenceBreaks(ctx, suite, ctx.step.solution!));
  if (fault !== undefined)
    throw new ClassifiedError(
      'scorer',
      `the judge is broken: ${verdict.summary} with the submission, and with the reference solution too: ${fault}`,
    );
  return { results, failure: verdict.reason };
}

/**
 * The judge's self-check: runs the same suite over the step's reference solution. It gives how
 * that run broke, or undefined when it did not.
 */
async function referenceBreaks(
  ctx: StepScoreContext,
  suite: PytestSuite,
  solution: string,
): Promise<string | undefined> {
  const reference = await ctx.snapshots.put(await readDirectoryFiles(solution));
  const verdict = await runOnce(ctx, suite, reference, join(ctx.outDir, 'reference'));
  return verdict.kind === 'ran' ? undefined : verdict.reason;
}
