import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, longhaul } from './cli-build.js';

// End to end through the real CLI, with an agent that lags a checkpoint behind (the oracle's
// prepared workspaces: checkpoint 1's reference at checkpoint 2). Its program kills the test
// runner (killer), or its workspace lacks the file the suite is collected from (collect): each is
// a failed checkpoint with its reason, once the judge saw the reference pass. A suite that breaks
// with the reference too (brokenjudge) is the scorer's fault, and the terminal table, Table 1 and
// the HTML report each say that the rates leave that step out, and why.
const agreement = join(import.meta.dirname, 'fixtures/agreement');
// Debian's Python first, as on the machines CI runs on.
const env = {
  ...process.env,
  PATH: `/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin:${process.env.PATH ?? ''}`,
};
let work: string;
let run: { code: number; output: string };

type Step = {
  status: string;
  scores: Record<string, number>;
  details: { tests?: { strict?: { failure?: string } } };
};
const step = async (task: string, index: number): Promise<Step> =>
  JSON.parse(
    await readFile(
      join(
        work,
        'run/trials',
        `${task}.oracle.just-solve.none.r1/steps/0${index}-checkpoint_${index}/scores.json`,
      ),
      'utf8',
    ),
  ) as Step;

beforeAll(async () => {
  await build();
  work = await mkdtemp(join(tmpdir(), 'longhaul-scbench-left-out-'));
  const problems = join(work, 'problems');
  const prepared = join(work, 'prepared');
  for (const task of ['killer', 'collect']) {
    await cp(join(agreement, task), join(problems, task), { recursive: true });
    for (const checkpoint of ['checkpoint_1', 'checkpoint_2'])
      await cp(join(agreement, task, 'solutions/checkpoint_1'), join(prepared, task, checkpoint), {
        recursive: true,
      });
  }
  // killer's problem with a checkpoint 2 suite that cannot be collected, whatever the program;
  // the agent's checkpoint 1 prints the words as given, not upper-cased.
  const broken = join(problems, 'brokenjudge');
  await cp(join(agreement, 'killer'), broken, { recursive: true });
  await writeFile(join(broken, 'tests/test_checkpoint_2.py'), 'def test_no_sep(run)\n    assert run("x")\n');
  await mkdir(join(prepared, 'brokenjudge/checkpoint_1'), { recursive: true });
  await writeFile(
    join(prepared, 'brokenjudge/checkpoint_1/shout.py'),
    'import sys\nprint(" ".join(sys.argv[1:]))\n',
  );
  await cp(join(agreement, 'killer/solutions/checkpoint_2'), join(prepared, 'brokenjudge/checkpoint_2'), {
    recursive: true,
  });
  const experiment = join(work, 'lagging.yaml');
  await writeFile(
    experiment,
    [
      'name: lagging',
      'source: { id: scbench, options: { path: problems } }',
      'harness: { id: oracle, options: { solutions: prepared } }',
      'script: { id: checkpoints, label: just-solve, options: { prompt: just-solve } }',
      'scorers: [tests, solve-rates]',
      'reporters: [summary, solve-rates]',
      '',
    ].join('\n'),
  );
  run = await longhaul(['run', experiment, '--run-dir', join(work, 'run')], env);
}, 900_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

const statement = [
  "not scored, so left out of the rates and means (each step's scores.json says what failed):",
  '  oracle/just-solve/none: 1 of 6 steps: 1 error:scorer (a scorer failed)',
].join('\n');

describe.skipIf(!prerequisites.pytest())(
  'an agent that breaks the test run, and a judge that is broken',
  () => {
    it('fails the checkpoint whose program killed the test runner, with the reason', async () => {
      expect((await step('killer', 1)).scores['tests.strict']).toBe(1);
      const second = await step('killer', 2);
      expect(second.status).toBe('ok');
      expect(second.scores).toMatchObject({ 'tests.strict': 0, 'tests.iso': 0, 'tests.core': 0 });
      expect(second.details.tests?.strict?.failure).toMatch(
        /^pytest ended before its session finished \((killed by a signal|exit code 137)\)/,
      );
    });

    it("fails the checkpoint whose suite the agent's files keep from being collected, naming what broke", async () => {
      const second = await step('collect', 2);
      expect(second.status).toBe('ok');
      expect(second.scores).toMatchObject({ 'tests.strict': 0, 'tests.core.total': 0 });
      expect(second.details.tests?.strict?.failure).toMatch(
        /^pytest exited with 2 \(interrupted: collection failed/,
      );
      expect(second.details.tests?.strict?.failure).toContain("No such file or directory: 'aliases.json'");
    });

    it('calls a suite that breaks with the reference too a scorer fault', async () => {
      expect((await step('brokenjudge', 1)).scores['tests.strict']).toBe(0);
      expect((await step('brokenjudge', 2)).status).toBe('error:scorer');
      expect(run.code).not.toBe(0);
    });

    it('says under the terminal table and under Table 1 how many steps the rates leave out, and why', () => {
      // The summary reporter's table comes first, then the solve-rates reporter's Table 1.
      const [table, table1] = run.output.split('Solve rates (%) over produced checkpoints');
      expect(table).toContain(statement);
      expect(table1).toContain(statement);
    });

    it('says it in the HTML report, under its headline table', async () => {
      const out = join(work, 'report.html');
      const report = await longhaul(['report', join(work, 'run'), '--out', out], env);
      expect(report.code).toBe(0);
      const html = await readFile(out, 'utf8');
      // The report's data: Table 1 leads, and its note carries the statement.
      const table1 = /"id":"table1".*?"note":"((?:[^"\\]|\\.)*)","lead":true/.exec(html);
      expect(JSON.parse(`"${table1?.[1]}"`)).toContain(statement);
    });
  },
);
