import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { TrialRecord } from '@longhaul/core';
import { ensureBuilt } from '@longhaul/testkit/build';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calcChain } from './chain.js';

// End to end through the real CLI, over hand-made chains in the swe-steps source's shape: the
// oracle harness and a model that changes nothing, in the individual, global and PRD settings.
const repoRoot = resolve(import.meta.dirname, '../../..');
const bin = join(repoRoot, 'core/cli/bin/longhaul.js');
const packages = [
  'core/cli',
  'core/gateway',
  'harnesses/oracle',
  'harnesses/ide',
  'plugins/environment-local',
  'plugins/scripts',
  'plugins/memory-basic',
  'plugins/scorer-swe-steps',
  'plugins/reporter-swe-steps',
];
let work: string;
let runDir: string;
let stdout: string;

const trial = async (id: string): Promise<TrialRecord> =>
  JSON.parse(await readFile(join(runDir, 'trials', id, 'trial.json'), 'utf8'));

/** `<scorer>.<metric>` of each PR of a trial, in chain order. */
const perPr = async (id: string, key: string) => (await trial(id)).steps.map((step) => step.scores[key]);

beforeAll(async () => {
  await ensureBuilt(packages, repoRoot);
  work = await mkdtemp(join(tmpdir(), 'longhaul-swe-steps-run-'));
  const tasks = [await calcChain(work, 'calc'), await calcChain(work, 'calc-breaks', { breaks: true })];
  await writeFile(join(work, 'tasks.json'), JSON.stringify(tasks));
  const replies = Array.from(
    { length: 12 },
    () => '    - { text: "I read the request and changed nothing." }',
  );
  const experiment = join(work, 'swe-steps.yaml');
  await writeFile(
    experiment,
    [
      'name: swe-steps-fixtures',
      `plugins: [${join(import.meta.dirname, 'fixtures/task-list')}]`,
      `source: { id: task-list, options: { file: ${join(work, 'tasks.json')} } }`,
      'models:',
      '  nochange:',
      '    backend: scripted',
      '    replies:',
      ...replies,
      'harness:',
      '  - oracle',
      '  - { id: ide, label: nochange, options: { model: nochange } }',
      'script:',
      '  - { id: isolated, label: individual, options: { prompt: swe-steps } }',
      '  - { id: conversation, label: global, options: { prompt: swe-steps } }',
      '  - { id: single-shot, label: prd, options: { prompt: swe-steps } }',
      'scorers: [swe-steps, swe-steps-task, swe-steps-health, swe-steps-rates]',
      'reporters: [summary, swe-steps]',
      'limits: { turnsPerStep: 3, onError: continue }',
      'concurrency: 2',
      '',
    ].join('\n'),
  );
  runDir = join(work, 'run');
  ({ stdout } = await promisify(execFile)('node', [bin, 'run', experiment, '--run-dir', runDir], {
    cwd: repoRoot,
    timeout: 900_000,
    maxBuffer: 16 * 1024 * 1024,
  }));
}, 1_200_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe.skipIf(!prerequisites.pytest())('SWE-STEPS settings end to end', () => {
  it('the oracle solves every PR in all three settings, in one turn each', async () => {
    for (const setting of ['individual', 'global', 'prd']) {
      const record = await trial(`calc.oracle.${setting}.none.r1`);
      expect(
        record.steps.map((s) => s.scores['swe-steps.success']),
        setting,
      ).toEqual([1, 1, 1]);
      expect(record.scores['swe-steps-task.success'], setting).toBe(1);
    }
    expect((await trial('calc.oracle.global.none.r1')).steps.map((s) => s.turns)).toEqual([1, 1, 1]);
  });

  it('a model that changes nothing scores F2P 0 % with P2P intact, after three cycles of feedback', async () => {
    const id = 'calc.nochange.individual.none.r1';
    expect(await perPr(id, 'swe-steps.f2p')).toEqual([0, 0, 0]);
    expect(await perPr(id, 'swe-steps.p2p')).toEqual([100, 100, null]);
    expect(await perPr(id, 'swe-steps.success')).toEqual([0, 0, 0]);
    expect((await trial(id)).steps.map((s) => s.turns)).toEqual([3, 3, 3]);
    // The failures of each cycle come back as the next cycle's prompt.
    const prompt = await readFile(join(runDir, 'trials', id, 'steps/01-pr-1/prompt.md'), 'utf8');
    expect(prompt).toContain('feedback cycle 2');
    expect(prompt).toContain('Tests of PR #1: 1 of 2 did not pass.');
    expect(prompt).toContain('- tests/test_ops.py::test_sub (failed)');
    expect(prompt).toMatch(/NameError|not defined/);
  });

  it("a step's diff.patch is the agent's own change; the reset to the reference is recorded apart", async () => {
    const dir = join(runDir, 'trials', 'calc.nochange.individual.none.r1', 'steps/02-pr-2');
    // The model changed nothing: PR #1's gold change, put in place by the reset, is not its diff.
    expect(await readFile(join(dir, 'diff.patch'), 'utf8')).toBe('');
    const reset = await readFile(join(dir, 'reset.patch'), 'utf8');
    expect(reset).toContain('+def sub(a, b):');
    const oracle = await readFile(
      join(runDir, 'trials', 'calc.oracle.individual.none.r1', 'steps/02-pr-2/diff.patch'),
      'utf8',
    );
    expect(oracle).toContain('+def mul(a, b):');
    expect(oracle).not.toContain('+def sub(a, b):');
  });

  it('the cascading suite of the global setting catches a later PR breaking an earlier one', async () => {
    const id = 'calc-breaks.oracle.global.none.r1';
    expect(await perPr(id, 'swe-steps.success')).toEqual([1, 1, 1]);
    expect(await perPr(id, 'swe-steps.cascaded_success')).toEqual([null, 1, 0]);
    expect(await perPr(id, 'swe-steps.suite_size')).toEqual([2, 3, 5]);
    expect(await perPr(id, 'swe-steps.cascaded_passed')).toEqual([null, 3, 4]);
    const scores = JSON.parse(
      await readFile(join(runDir, 'trials', id, 'steps/03-pr-3/scores.json'), 'utf8'),
    );
    expect(scores.details['swe-steps'].success.cascaded['tests/test_ops.py::test_sub']).toEqual({
      pr: 2,
      outcome: 'failed',
    });
    // The individual setting resets to gold and runs only the PR's own suite: no cascade.
    expect(await perPr('calc-breaks.oracle.individual.none.r1', 'swe-steps.cascaded_success')).toEqual([
      null,
      null,
      null,
    ]);
  });

  it('PRD plans first, then scores each PR on the final state', async () => {
    const id = 'calc-breaks.oracle.prd.none.r1';
    // The final state lacks sub: PR #1's F2P and PR #2's P2P fail, PR #3 passes.
    expect(await perPr(id, 'swe-steps.success')).toEqual([0, 0, 1]);
    expect(await perPr(id, 'swe-steps.f2p')).toEqual([0, 100, 100]);
    expect(await perPr(id, 'swe-steps.p2p')).toEqual([100, 50, null]);
    const prompt = await readFile(join(runDir, 'trials', id, 'steps/01-pr-1/prompt.md'), 'utf8');
    // The planning turn's prompt (with the whole document), then the work turn's.
    expect(prompt).toMatch(/write PLAN\.md[\s\S]*<!-- turn 2 -->[\s\S]*following PLAN\.md/);
    // The model that changes nothing used its pooled budget: the planning turn, then 3 × 3 turns.
    expect((await trial('calc.nochange.prd.none.r1')).steps[0]!.turns).toBe(10);
  });

  it('reports PR success, pooled per-test rates and the inflation of the individual setting', async () => {
    const summary = JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8'));
    const score = (condition: string, key: string) =>
      summary.experimentScores.find(
        (s: { condition: string; key: string }) => s.condition === condition && s.key === key,
      )?.value;
    // calc (3/3) and calc-breaks (3/3 individual; 3/3 global on own suites; 1/3 PRD).
    expect(score('oracle/individual/none', 'swe-steps-rates.pr_success')).toBe(100);
    expect(score('oracle/prd/none', 'swe-steps-rates.pr_success')).toBeCloseTo((100 * 4) / 6);
    expect(score('oracle/individual/none', 'swe-steps-rates.inflation_prd')).toBeCloseTo(100 - (100 * 4) / 6);
    expect(score('oracle/individual/none', 'swe-steps-rates.inflation_global')).toBe(0);
    expect(score('nochange/individual/none', 'swe-steps-rates.f2p')).toBe(0);
    expect(score('nochange/individual/none', 'swe-steps-rates.p2p')).toBe(100);
    expect(score('oracle/global/none', 'swe-steps-rates.tasks_completed')).toBe(2);
    // The swe-steps reporter's Table 3 and Table 8 shapes.
    // PRs passed, not judged, errored and cancelled, then PR success over the judged PRs, tasks
    // completed and tasks not judged.
    expect(stdout).toMatch(
      /oracle\/individual\/none\s+individual\s+6\/6,2\/2\s+6\/6\s+0\s+0\s+0\s+100\.00\s+2\/2\s+0\s/,
    );
    expect(stdout).toMatch(/oracle\/prd\/none\s+prd\s+4\/6,1\/2\s+4\/6\s+0\s+0\s+0\s+66\.67\s+1\/2\s+0\s/);
    expect(stdout).toMatch(/nochange\/individual\/none\s+100\.00\/0\.00\s+100\.00\s+0\.00/);
    expect(stdout).toMatch(/oracle\/individual\/none\s+\+0\.00\s+\+33\.33/);
  });

  it('measures repository health after each PR for the agent and the gold trace', async () => {
    const id = 'calc.oracle.global.none.r1';
    // The oracle writes the gold tree: the agent's Δ is the gold trace's; div adds one if.
    expect(await perPr(id, 'swe-steps-health.delta_cognitive')).toEqual([0, 0, 1]);
    expect(await perPr(id, 'swe-steps-health.gold_delta_cognitive')).toEqual([0, 0, 1]);
    expect(await perPr('calc.nochange.global.none.r1', 'swe-steps-health.delta_cognitive')).toEqual([
      0, 0, 0,
    ]);
  });
});
