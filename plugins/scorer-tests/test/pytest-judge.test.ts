import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Score, Task } from '@longhaul/core';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { describe, expect, it } from 'vitest';
import { scoreStep } from './harness.js';
import { type ScbenchTaskOptions, scbenchTaskAt } from './scbench-task.js';

// `tally`: one checkpoint whose tests exercise how results are counted and categorized (a test
// that fails and then errors in teardown, two classes with a test of the same name, parametrize
// ids named like markers, a conftest that reads the submission's words.json while collecting),
// and submissions that break the run or try to change it.
const tallyRoot = join(import.meta.dirname, 'fixtures/pytest/tally');
const submission = (name: string) => join(tallyRoot, 'submissions', name);
const tally = (options: ScbenchTaskOptions = {}): Task =>
  scbenchTaskAt(tallyRoot, 'echo.py', 1, { markers: {}, ...options });

interface Case {
  id: string;
  passed: boolean;
  reason?: string;
}
const detailOf = (list: Score[]) => list[0]!.detail as { cases: Case[]; failure?: string };

/** The counts of a scored step, as the table shows them. */
const counts = (scores: Record<string, unknown>) =>
  Object.fromEntries(
    ['strict', 'iso', 'core', 'pass_rate', 'core.passed', 'core.total', 'error.passed', 'error.total']
      .concat(['functionality.passed', 'functionality.total', 'regression.total'])
      .map((key) => [key, scores[key]]),
  );

/**
 * What a judge that trusts the workspace (the scorer before the judge area) sees: the suite
 * copied into the workspace, pytest started there with that folder on PYTHONPATH. Each hack
 * below fools it; the real judge must not be.
 */
async function naiveRun(workspace: string): Promise<number> {
  const copy = await mkdtemp(join(tmpdir(), 'longhaul-naive-'));
  await cp(workspace, copy, { recursive: true });
  await cp(join(tallyRoot, 'tests'), join(copy, '.longhaul-pytest/tests'), { recursive: true });
  const run = promisify(execFile)(
    '/usr/bin/python3',
    [
      '-m',
      'pytest',
      '.longhaul-pytest/tests',
      '--entrypoint=/usr/bin/python3 echo.py',
      '--checkpoint=checkpoint_1',
    ],
    { cwd: copy, env: { PATH: '/usr/bin:/bin', PYTHONPATH: join(copy, '.longhaul-pytest'), HOME: copy } },
  );
  return run.then(
    () => 0,
    (error: { code: number }) => error.code,
  );
}

describe.skipIf(!prerequisites.pytest())('the pytest judge', { timeout: 600_000 }, () => {
  it('the reference passes every test: each counted once, named with its class, categorized by its keywords', async () => {
    const { scores, list } = await scoreStep(tally(), 0, join(tallyRoot, 'solutions/checkpoint_1'));
    expect(counts(scores)).toEqual({
      strict: 1,
      iso: 1,
      core: 1,
      pass_rate: 1,
      'core.passed': 7,
      'core.total': 7,
      'error.passed': 1,
      'error.total': 1,
      'functionality.passed': 1,
      'functionality.total': 1,
      'regression.total': 0,
    });
    expect(detailOf(list).cases.map((item) => item.id)).toEqual([
      'checkpoint_1/core/test_checkpoint_1.py::test_echo',
      'checkpoint_1/core/test_checkpoint_1.py::test_shout',
      'checkpoint_1/core/test_checkpoint_1.py::test_from_file',
      'checkpoint_1/core/test_checkpoint_1.py::TestAlpha::test_same',
      'checkpoint_1/core/test_checkpoint_1.py::TestBeta::test_same',
      'checkpoint_1/error/test_checkpoint_1.py::test_words[error]',
      'checkpoint_1/functionality/test_checkpoint_1.py::test_words[functionality]',
      'checkpoint_1/core/test_checkpoint_1.py::test_words[plain]',
      'checkpoint_1/core/test_checkpoint_1.py::test_listed[x]',
    ]);
  });

  it('a test that fails and then errors in teardown counts once, as an error with its failure message', async () => {
    const { scores, list } = await scoreStep(tally(), 0, submission('sloppy'));
    expect(counts(scores)).toMatchObject({
      strict: 0,
      core: 0,
      pass_rate: 7 / 9,
      'core.passed': 5,
      'core.total': 7,
      'error.total': 1,
      'functionality.total': 1,
    });
    const failed = detailOf(list).cases.filter((item) => !item.passed);
    expect(failed).toEqual([
      expect.objectContaining({
        id: 'checkpoint_1/core/test_checkpoint_1.py::test_shout',
        reason: expect.stringMatching(/^error: AssertionError: assert 'shout\\n' == 'SHOUT\\n'/),
      }),
      expect.objectContaining({ id: 'checkpoint_1/core/test_checkpoint_1.py::TestBeta::test_same' }),
    ]);
    expect(detailOf(list).failure).toBeUndefined();
  });

  it("the submission's pytest configuration (pyproject.toml, pytest.ini, setup.cfg, tox.ini, conftest.py) changes nothing", async () => {
    const sloppy = await scoreStep(tally(), 0, submission('sloppy'));
    const configured = await scoreStep(tally(), 0, submission('configured'));
    expect(counts(configured.scores)).toEqual(counts(sloppy.scores));
    expect(detailOf(configured.list).cases).toEqual(
      detailOf(sloppy.list).cases.map((item) => ({ ...item, durationMs: expect.any(Number) })),
    );
  });

  it('a program that kills the test runner fails the checkpoint, with the reason, after the reference showed the judge works', async () => {
    const { scores, list, outDir } = await scoreStep(tally(), 0, submission('killer'));
    expect(scores).toMatchObject({ strict: 0, iso: 0, core: 0, pass_rate: 0 });
    // The tests before the kill are kept.
    expect(scores['core.passed']).toBeGreaterThanOrEqual(1);
    expect(detailOf(list).failure).toMatch(
      /^pytest ended before its session finished \((killed by a signal|exit code 137)\)/,
    );
    expect(list[0]!.feedback).toMatch(/^the hidden tests could not run to the end: pytest ended before/);
    // The self-check ran the reference, which finished.
    expect(await readFile(join(outDir, 'reference/report.jsonl'), 'utf8')).toContain('"event": "finish"');
  });

  it("a collection the submission's files break fails the checkpoint, naming what broke", async () => {
    const { scores, list } = await scoreStep(tally(), 0, submission('bad-words'));
    expect(scores).toMatchObject({ strict: 0, iso: 0, core: 0, pass_rate: 0, 'core.total': 0 });
    expect(detailOf(list).failure).toMatch(/^pytest exited with 2 \(interrupted: collection failed/);
    expect(detailOf(list).failure).toContain('test_checkpoint_1.py');
    // What the agent is told does not quote the hidden tests.
    expect(list[0]!.feedback).toBe(
      'the hidden tests could not run to the end: pytest exited with 2 (interrupted: collection failed or the session was stopped):',
    );
  });

  it('a run that breaks the same way with the reference solution is a scorer fault: the judge is broken', async () => {
    const task = tally();
    task.steps[0]!.solution = submission('bad-words');
    await expect(scoreStep(task, 0, submission('bad-words'))).rejects.toThrow(
      /the judge is broken: pytest exited with 2 .* with the submission, and with the reference solution too/,
    );
  });

  it('without a reference solution, a broken run fails the checkpoint and says the judge was not checked', async () => {
    const task = tally();
    delete task.steps[0]!.solution;
    const { scores, list } = await scoreStep(task, 0, submission('killer'));
    expect(scores.strict).toBe(0);
    expect(detailOf(list).failure).toMatch(/no reference solution to tell a broken judge apart\)$/);
  });

  it('a suite past its time limit fails the checkpoint with the reason', async () => {
    const { scores, list } = await scoreStep(tally({ timeoutMs: 5_000 }), 0, submission('slow'));
    expect(scores).toMatchObject({ strict: 0, iso: 0, core: 0, pass_rate: 0 });
    expect(detailOf(list).failure).toBe(
      "the suite did not finish within its time limit of 5 s (the scbench source's suiteTimeoutSeconds)",
    );
  });

  // Issue 43's three ways to fake a pass, with a program that prints "hello" whatever it is asked.
  describe.each([
    ['a conftest.py and pytest.ini in the workspace root', 'hack-root-conftest'],
    ['the same pre-created in the suite folders the judge used or uses', 'hack-suite-folder'],
    ['sitecustomize.py, usercustomize.py and a .pth file patching pytest', 'hack-sitecustomize'],
  ])('%s', (_title, name) => {
    it('fools a judge that trusts the workspace', async () => {
      expect(await naiveRun(submission(name))).toBe(0);
    });

    it('leaves the wrong program failing here', async () => {
      const { scores } = await scoreStep(tally(), 0, submission(name));
      expect(counts(scores)).toMatchObject({ strict: 0, iso: 0, core: 0, 'core.passed': 1, 'core.total': 7 });
    });
  });
});
