import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PytestSuite, Task } from '@longhaul/core';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { describe, expect, it } from 'vitest';
import { categorize, checkpointOf, markersOf } from '../src/pytest/categorize.js';
import { outcomeOf, parseReport } from '../src/pytest/report.js';
import { scoreStep } from './harness.js';
import { type ScbenchTaskOptions, scbenchTaskAt } from './scbench-task.js';

// SlopCodeBench-format problems written for the scbench source's tests; the scorer reads them
// through task metadata only, as the source describes them.
const fixtures = join(import.meta.dirname, '../../source-scbench/test/fixtures');

const scbenchTask = (
  name: string,
  entry: string,
  checkpoints: number,
  { dir = 'problems', ...options }: ScbenchTaskOptions & { dir?: string } = {},
): Task => scbenchTaskAt(join(fixtures, dir, name), entry, checkpoints, options);

/** A workspace holding `dir`'s files plus the wordfreq static asset. */
async function withStopwords(dir: string): Promise<string> {
  const workspace = await mkdtemp(join(tmpdir(), 'longhaul-scbench-ws-'));
  await cp(dir, workspace, { recursive: true });
  await cp(join(fixtures, 'problems/wordfreq/stopwords'), join(workspace, 'stopwords'), { recursive: true });
  return workspace;
}

const wordfreq = () =>
  scbenchTask('wordfreq', 'wordfreq.py', 2, { staticAssets: { stopwords: 'stopwords' } });

const glossary = () =>
  scbenchTask('glossary', 'glossary.py', 2, {
    dir: 'fidelity',
    staticAssets: { terms: 'terms' },
    testTimeoutSeconds: 5,
  });

// Its config maps `slow` to functionality, `smoke` to core and `contract` to error.
const shout = () =>
  scbenchTask('shout', 'shout.py', 3, {
    dir: 'fidelity',
    markers: { slow: 'functionality', smoke: 'core', contract: 'error' },
  });

describe('categorize', () => {
  const custom = { slow: 'functionality' as const, smoke: 'core' as const, contract: 'error' as const };
  const at = (checkpoint: string, ...markers: string[]) =>
    categorize({ checkpoint, markers }, 'checkpoint_2', custom);

  it('a test of an earlier checkpoint is regression whatever its markers', () => {
    expect(at('checkpoint_1', 'error')).toBe('regression');
    expect(at('checkpoint_1', 'functionality')).toBe('regression');
    expect(at('checkpoint_1', 'smoke')).toBe('regression');
    expect(at('checkpoint_1')).toBe('regression');
  });

  it('then error, then the regression marker, then custom markers, then functionality, else core', () => {
    expect(at('checkpoint_2', 'error', 'regression')).toBe('error');
    expect(at('checkpoint_2', 'error', 'slow')).toBe('error');
    expect(at('checkpoint_2', 'contract', 'regression')).toBe('regression');
    expect(at('checkpoint_2', 'regression')).toBe('regression');
    expect(at('checkpoint_2', 'functionality', 'smoke')).toBe('core');
    expect(at('checkpoint_2', 'contract')).toBe('error');
    expect(at('checkpoint_2', 'slow')).toBe('functionality');
    expect(at('checkpoint_2', 'functionality')).toBe('functionality');
    expect(at('checkpoint_2')).toBe('core');
  });

  it("takes a test's checkpoint from its file and its markers from its keywords, as upstream does", () => {
    expect(checkpointOf('.evaluation_tests/test_checkpoint_3.py', 'checkpoint_1')).toBe('checkpoint_3');
    expect(checkpointOf('.evaluation_tests/helpers/check.py', 'checkpoint_1')).toBe('checkpoint_1');
    // A parametrize id and a class name are keywords too; only known markers count, in order.
    const keywords = [
      'test_parse[error]',
      'error',
      'TestParse',
      'test_checkpoint_1.py',
      'parametrize',
      'slow',
      'x',
    ];
    expect(markersOf(keywords, custom)).toEqual(['error', 'slow']);
  });
});

describe('parseReport', () => {
  const line = (record: object) => JSON.stringify(record);

  it('counts a test once, with the outcome the last failing phase gives and the first failing message', () => {
    const text = [
      line({ event: 'start' }),
      line({
        event: 'report',
        nodeid: 'a.py::test_x',
        when: 'setup',
        category: '',
        duration: 0.1,
        keywords: ['test_x', 'error'],
      }),
      line({
        event: 'report',
        nodeid: 'a.py::test_x',
        when: 'call',
        category: 'failed',
        duration: 0.2,
        message: 'assert 1 == 2',
      }),
      line({
        event: 'report',
        nodeid: 'a.py::test_x',
        when: 'teardown',
        category: 'error',
        duration: 0.3,
        message: 'boom',
      }),
      line({
        event: 'report',
        nodeid: 'a.py::test_y',
        when: 'setup',
        category: 'skipped',
        duration: 0,
        message: 'later',
      }),
      line({ event: 'report', nodeid: 'a.py::test_z', when: 'call', category: 'xfailed', duration: 0 }),
      line({ event: 'report', nodeid: 'a.py::test_w', when: 'call', category: 'xpassed', duration: 0 }),
      line({ event: 'finish', exitstatus: 1, collected: 4 }),
      '{"event": "report", "nodeid": "cut sh',
    ].join('\n');
    const run = parseReport(text);
    expect(run).toMatchObject({
      started: true,
      finished: { exitstatus: 1, collected: 4 },
      collectErrors: [],
    });
    expect(run.tests).toEqual([
      {
        nodeid: 'a.py::test_x',
        file: 'a.py',
        outcome: 'error',
        keywords: ['test_x', 'error'],
        message: 'assert 1 == 2',
        durationMs: 600,
      },
      {
        nodeid: 'a.py::test_y',
        file: 'a.py',
        outcome: 'skipped',
        keywords: [],
        message: 'later',
        durationMs: 0,
      },
      { nodeid: 'a.py::test_z', file: 'a.py', outcome: 'skipped', keywords: [], durationMs: 0 },
      { nodeid: 'a.py::test_w', file: 'a.py', outcome: 'passed', keywords: [], durationMs: 0 },
    ]);
    expect(outcomeOf(['', 'passed', ''])).toBe('passed');
    expect(outcomeOf(['', 'weird'])).toBe('error');
  });
});

// Each test starts pytest and a Python process per hidden test: minutes on a busy two-core machine.
describe.skipIf(!prerequisites.pytest())('pytest suites (SlopCodeBench format)', { timeout: 600_000 }, () => {
  it('the reference solutions of wordfreq pass every test, checkpoint 1 tests counting as regression at checkpoint 2', async () => {
    const task = wordfreq();
    const first = await scoreStep(task, 0, await withStopwords(task.steps[0]!.solution!));
    expect(first.scores).toMatchObject({
      strict: 1,
      iso: 1,
      core: 1,
      'core.total': 2,
      'functionality.total': 2,
      'error.total': 1,
      'regression.total': 0,
    });
    const second = await scoreStep(task, 1, await withStopwords(task.steps[1]!.solution!));
    // All five tests of checkpoint 1, its error test included, are regression at checkpoint 2.
    expect(second.scores).toMatchObject({
      strict: 1,
      iso: 1,
      core: 1,
      pass_rate: 1,
      'core.total': 2,
      'functionality.total': 3,
      'error.total': 1,
      'regression.total': 5,
    });
  });

  it('a solution that fails an earlier error test (regression now) and a functionality test: strict 0, iso 0, core 1', async () => {
    const task = wordfreq();
    const { scores, list } = await scoreStep(
      task,
      1,
      await withStopwords(join(fixtures, 'broken/wordfreq-error-and-stopwords')),
    );
    expect(scores).toMatchObject({
      strict: 0,
      iso: 0,
      core: 1,
      'core.passed': 2,
      'core.total': 2,
      'functionality.passed': 2,
      'functionality.total': 3,
      'error.passed': 1,
      'error.total': 1,
      'regression.passed': 4,
      'regression.total': 5,
    });
    const failed = (list[0]!.detail as { cases: { id: string; passed: boolean }[] }).cases.filter(
      (item) => !item.passed,
    );
    expect(failed.map((item) => item.id).sort()).toEqual([
      'checkpoint_2/functionality/test_checkpoint_2.py::test_stopwords',
      'checkpoint_2/regression/test_checkpoint_1.py::test_missing_file',
    ]);
    expect(list[0]!.feedback).toContain('2 of 11 hidden tests failed');
  });

  it('a solution that only breaks tie order, which the core tests of checkpoint 1 check: strict 0, iso 1, core 1', async () => {
    const task = wordfreq();
    const { scores } = await scoreStep(
      task,
      1,
      await withStopwords(join(fixtures, 'broken/wordfreq-ties-reversed')),
    );
    expect(scores).toMatchObject({
      strict: 0,
      iso: 1,
      core: 1,
      'regression.passed': 3,
      'regression.total': 5,
    });
  });

  it('the categories of shout: custom markers by their group, the regression marker honoured in the current checkpoint', async () => {
    const task = shout();
    const counts = async (index: number, workspace = task.steps[index]!.solution!) => {
      const { scores } = await scoreStep(task, index, workspace);
      return [
        'strict',
        'iso',
        'core',
        'core.total',
        'functionality.total',
        'error.total',
        'regression.total',
      ].map((key) => scores[key]);
    };
    expect(await counts(0)).toEqual([1, 1, 1, 1, 2, 1, 0]);
    // checkpoint_2: smoke+functionality is core, contract is error, regression-marked tests (one
    // also error-marked, which wins) are regression next to the four of checkpoint_1.
    expect(await counts(1)).toEqual([1, 1, 1, 2, 0, 2, 6]);
    expect(await counts(2)).toEqual([1, 1, 1, 1, 0, 1, 10]);
  });

  it('an error test of an earlier checkpoint that fails later is a regression failure: strict 0, iso 1', async () => {
    const task = shout();
    const { scores, list } = await scoreStep(task, 2, join(fixtures, 'broken/shout-accepts-no-words'));
    expect(scores).toMatchObject({ strict: 0, iso: 1, core: 1, 'error.passed': 1, 'regression.passed': 8 });
    const failed = (list[0]!.detail as { cases: { id: string; passed: boolean }[] }).cases.filter(
      (item) => !item.passed,
    );
    expect(failed.map((item) => item.id).sort()).toEqual([
      'checkpoint_3/regression/test_checkpoint_1.py::test_no_words',
      'checkpoint_3/regression/test_checkpoint_2.py::test_upper_without_words',
    ]);
  });

  it('places static assets as upstream does: in the workspace for the solution, in tests/assets for the tests', async () => {
    const task = glossary();
    for (const index of [0, 1]) {
      const workspace = await mkdtemp(join(tmpdir(), 'longhaul-scbench-ws-'));
      await cp(task.steps[index]!.solution!, workspace, { recursive: true });
      await cp(join(fixtures, 'fidelity/glossary/terms'), join(workspace, 'terms'), { recursive: true });
      const { scores } = await scoreStep(task, index, workspace);
      expect(scores).toMatchObject({ strict: 1, 'core.total': index === 0 ? 2 : 1 });
    }
  });

  it('a test skipped by the conftest counts in the total and does not pass, its reason kept: strict 0', async () => {
    const task = scbenchTask('unitconv', 'unitconv.py', 1, {
      dir: 'fidelity',
      markers: { imperial: 'functionality' },
    });
    const { scores, list } = await scoreStep(task, 0, task.steps[0]!.solution!);
    expect(scores).toMatchObject({
      strict: 0,
      iso: 0,
      core: 1,
      pass_rate: 3 / 5,
      'core.passed': 2,
      'core.total': 2,
      'functionality.passed': 0,
      'functionality.total': 2,
      'error.passed': 1,
    });
    const cases = (list[0]!.detail as { cases: { id: string; passed: boolean; reason?: string }[] }).cases;
    expect(cases.filter((item) => !item.passed)).toEqual([
      expect.objectContaining({
        id: 'checkpoint_1/functionality/test_checkpoint_1.py::test_imperial[12-in-ft-1.000]',
        reason: 'skipped: imperial cases under review',
      }),
      expect.objectContaining({
        id: 'checkpoint_1/functionality/test_checkpoint_1.py::test_imperial[1-ft-cm-30.480]',
        reason: 'skipped: imperial cases under review',
      }),
    ]);
  });

  it("a test stopped by the config's per-test timeout fails with reason timeout", async () => {
    const { scores, list } = await scoreStep(glossary(), 0, join(fixtures, 'broken/glossary-hangs'));
    expect(scores).toMatchObject({ strict: 0, 'core.passed': 1, 'core.total': 2, 'error.passed': 0 });
    const reasons = (list[0]!.detail as { cases: { id: string; reason?: string }[] }).cases
      .filter((item) => item.reason !== undefined)
      .map((item) => item.reason);
    expect(reasons).toEqual([
      expect.stringMatching(/^timeout: Timeout >5\.0s/),
      expect.stringMatching(/^timeout: /),
    ]);
  });

  it('runs HTTP problems whose conftest starts the server, with custom markers grouped', async () => {
    const task = scbenchTask('tinykv', 'kv_server.py', 2);
    const second = await scoreStep(task, 1, task.steps[1]!.solution!);
    expect(second.scores).toMatchObject({
      strict: 1,
      'functionality.total': 1,
      'error.total': 1,
      'regression.total': 3,
    });
    const behind = await scoreStep(task, 1, task.steps[0]!.solution!);
    expect(behind.scores).toMatchObject({ strict: 0, iso: 0, core: 0, 'regression.passed': 3 });
  });

  it('a suite whose pytest cannot start is a scorer fault naming pytest, not a score', async () => {
    const task = wordfreq();
    (task.metadata.pytest as PytestSuite).python = '/usr/bin/false';
    await expect(scoreStep(task, 0, task.steps[0]!.solution!)).rejects.toThrow(
      /pytest did not start .* \(exit code 1\)/,
    );
  });
});
