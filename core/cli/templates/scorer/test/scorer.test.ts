import type { Scorer, StepScoreContext, TrialSpec } from '@longhaul/core';
import {
  describeScorer,
  FakeEnvironment,
  FakeSnapshotStore,
  instantiatePlugin,
  sampleTask,
} from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

const task = sampleTask(2);
const ref = (id: string) => ({ id, options: {}, label: id });
const trial: TrialSpec = {
  id: 'trial',
  runId: 'run',
  runDir: '/runs/run',
  task,
  condition: { key: 'h/s/m', harness: ref('h'), environment: ref('e'), script: ref('s'), memory: ref('m') },
  repeat: 1,
  scorers: [ref('{{id}}')],
  limits: { turnMs: 60_000, stepMs: 60_000, turnsPerStep: 1, trialUsd: 0, onError: 'stop' },
  plugins: [],
};

const file = (path: string, text: string) => ({ path, mode: 0o644, data: Buffer.from(text) });

/** The context the kernel gives a step scorer, over two workspaces: before and after the step. */
async function stepContext(): Promise<StepScoreContext> {
  const snapshots = new FakeSnapshotStore();
  const previous = await snapshots.put([file('main.py', 'print(1)\n')]);
  const snapshot = await snapshots.put([
    file('main.py', 'import util\n\nprint(util.two())\n'),
    file('util.py', 'def two():\n    return 2\n'),
    file('README.md', '# notes\n'),
  ]);
  const environment = new FakeEnvironment({ snapshots });
  return {
    task,
    step: task.steps[1]!,
    trial,
    snapshot,
    previous,
    snapshots,
    openSandbox: (from) =>
      environment.open({ runId: 'run', trialId: 'trial', purpose: 'scorer', task, needs: {}, from }),
    outDir: '/runs/run/tests',
    status: 'ok',
    signal: new AbortController().signal,
  };
}

// The contract every scorer keeps (testkit's conformance suite), with the metrics it promises.
describeScorer(
  '{{id}}',
  async () => ({ scorer: instantiatePlugin<Scorer>(plugin), context: await stepContext() }),
  { metrics: ['files', 'lines', 'lines_added'] },
);

describe('scorer {{id}}', () => {
  it('counts files and non-blank lines, and the lines the step added', async () => {
    const scorer = instantiatePlugin<Scorer>(plugin);
    if (scorer.scope !== 'step') throw new Error('a step scorer');
    const scores = await scorer.score(await stepContext());
    expect(scores.map(({ metric, value }) => [metric, value])).toEqual([
      ['files', 3],
      ['lines', 5],
      ['lines_added', 4],
    ]);
  });

  it('counts only the extensions it is given', async () => {
    const scorer = instantiatePlugin<Scorer>(plugin, { extensions: ['.py'] });
    if (scorer.scope !== 'step') throw new Error('a step scorer');
    const scores = await scorer.score(await stepContext());
    expect(scores.find((score) => score.metric === 'files')?.value).toBe(2);
  });

  it('refuses an extension without its dot', () => {
    expect(() => plugin.options.parse({ extensions: ['py'] })).toThrow(/extensions/);
  });
});
