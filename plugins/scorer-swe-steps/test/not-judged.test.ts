import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import type { Score, Step, StepScoreContext } from '@longhaul/core';
import { FakeEnvironment } from '@longhaul/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SweStepsScorer, sweStepsOptions } from '../src/index.js';
import { condition, trialOf } from './trials.js';

// A two-PR chain: PR #2 rewrites tests/test_a.py and no longer lists PR #1's F2P test there, so on
// the final state (PRD) PR #1 has no F2P test left, only a P2P test in tests/test_b.py. The fake
// environment plays pytest: every test it is asked about passes, as for an agent that did nothing
// when the only tests left are ones that passed before the PR.
let work: string;
let steps: Step[];

async function writeSuite(dir: string, suite: Record<string, unknown>, files: Record<string, string>) {
  await mkdir(join(dir, 'files'), { recursive: true });
  await writeFile(
    join(dir, 'suite.json'),
    JSON.stringify({ command: ['python3', '-m', 'pytest'], ...suite }),
  );
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, 'files', path)), { recursive: true });
    await writeFile(join(dir, 'files', path), text);
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'longhaul-swe-steps-judged-'));
  await writeSuite(
    join(work, 'pr-1'),
    {
      pr: 1,
      testFiles: ['tests/test_a.py', 'tests/test_b.py'],
      f2p: ['tests/test_a.py::test_new'],
      p2p: ['tests/test_b.py::test_old'],
    },
    { 'tests/test_a.py': 'def test_new(): pass\n', 'tests/test_b.py': 'def test_old(): pass\n' },
  );
  await writeSuite(
    join(work, 'pr-2'),
    { pr: 2, testFiles: ['tests/test_a.py'], f2p: ['tests/test_a.py::test_other'], p2p: [] },
    { 'tests/test_a.py': 'def test_other(): pass\n' },
  );
  // The gold trees: nothing but the tests the suites write.
  for (const pr of [1, 2]) await mkdir(join(work, `gold-${pr}`), { recursive: true });
  steps = [1, 2].map((pr, index) => ({
    id: `pr-${pr}`,
    index,
    prompt: '',
    cases: join(work, `pr-${pr}`),
    solution: join(work, `gold-${pr}`),
    metadata: {},
  }));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Scores PR `index` of the chain under `script`, every requested test passing. */
async function score(script: string, index: number): Promise<Record<string, Score>> {
  const environment = new FakeEnvironment({
    exec: async (argv, options, sandbox) => {
      const ids = ['tests/test_a.py::test_new', 'tests/test_b.py::test_old', 'tests/test_a.py::test_other'];
      const tests = Object.fromEntries(
        ids.filter((id) => argv.includes(id.split('::')[0]!)).map((id) => [id, 'passed']),
      );
      // Where the scorer asked its plugin to write them: a folder named for the run.
      const outcomes = posix.relative(sandbox.workspace, options.env!.LONGHAUL_OUTCOMES!);
      await sandbox.writeFile(outcomes, JSON.stringify({ tests, collectErrors: [] }));
      return { exitCode: 0 };
    },
  });
  const { spec } = trialOf('chain', 'chain', [{ passed: true }, { passed: true }], condition(script, script));
  spec.task.steps = steps;
  const ctx: StepScoreContext = {
    task: spec.task,
    step: steps[index]!,
    trial: spec,
    snapshot: await environment.snapshots.put([]),
    snapshots: environment.snapshots,
    openSandbox: () =>
      environment.open({ runId: 'run', trialId: spec.id, purpose: 'scorer', task: spec.task, needs: {} }),
    outDir: join(work, 'out', script, String(index)),
    status: 'ok',
    signal: new AbortController().signal,
  };
  const scores = await new SweStepsScorer(sweStepsOptions.parse({})).score(ctx);
  return Object.fromEntries(scores.map((s) => [s.metric, s]));
}

describe('swe-steps: a PR with no F2P test left to judge', () => {
  it('is not judged in PRD when later commits superseded every F2P test: no success, neither passed nor failed', async () => {
    const scores = await score('single-shot', 0);
    expect(scores.success!.value).toBeNull();
    expect(scores.success!.detail).toMatchObject({
      pr: 1,
      judged: false,
      reason: 'superseded',
      superseded: ['tests/test_a.py::test_new'],
    });
    expect(scores.f2p_total!.value).toBe(0);
    expect(scores.f2p!.value).toBeNull();
    // Its P2P tests still run and count.
    expect([scores.p2p_passed!.value, scores.p2p_total!.value]).toEqual([1, 1]);
  });

  it('is judged, and passes, where the PR is scored on its own state', async () => {
    const scores = await score('isolated', 0);
    expect(scores.success!.value).toBe(1);
    expect(scores.success!.detail).toMatchObject({ judged: true });
    expect(scores.f2p_total!.value).toBe(1);
  });

  it('the last PR of the chain keeps its F2P tests in PRD and is judged', async () => {
    const scores = await score('single-shot', 1);
    expect(scores.success!.value).toBe(1);
    expect(scores.success!.detail).toMatchObject({ pr: 2, judged: true });
  });
});
