import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { StepScoreContext, TrialSpec } from '@longhaul/core';
import { describeScorer, FakeSnapshotStore } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import { binned, healthOptions, healthScores, progressBin, SweStepsHealthScorer } from '../src/index.js';
import { condition, trialOf } from './trials.js';

const flat = 'def f(x):\n    return x\n';
// Cognitive complexity 1 (if) + 2 (nested for) + 3 (nested if) = 6.
const nested =
  'def g(xs):\n    if xs:\n        for x in xs:\n            if x:\n                return x\n    return None\n';

async function tree(root: string, files: Record<string, string>): Promise<string> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

async function context(): Promise<StepScoreContext> {
  const dir = await mkdtemp(join(tmpdir(), 'swe-steps-health-'));
  const seed = await tree(join(dir, 'seed'), { 'pkg/a.py': flat });
  const solution = await tree(join(dir, 'gold'), {
    'pkg/a.py': flat,
    'pkg/b.py': nested,
    'tests/test_b.py': nested,
  });
  const snapshots = new FakeSnapshotStore();
  const encode = (text: string) => new TextEncoder().encode(text);
  const snapshot = await snapshots.put([
    { path: 'pkg/a.py', mode: 0o644, data: encode(nested) },
    { path: 'pkg/b.py', mode: 0o644, data: encode(`${nested}\n${nested.replace('def g', 'def h')}`) },
  ]);
  const step = { id: 'pr-1', index: 0, prompt: '', solution, metadata: {} };
  const trial = trialOf('r', 't', [{ passed: true }], condition('conversation', 'global')).spec;
  return {
    task: { ...trial.task, seed, steps: [step] },
    step,
    trial: trial as TrialSpec,
    snapshot,
    snapshots,
    openSandbox: () => Promise.reject(new Error('not needed')),
    outDir: join(dir, 'out'),
    status: 'ok',
    signal: new AbortController().signal,
  };
}

describe('swe-steps-health', () => {
  it("measures the agent's workspace and the gold trace after the PR, Δ from the base commit, tests left out", async () => {
    const scores = await new SweStepsHealthScorer(healthOptions.parse({})).score(await context());
    const value = Object.fromEntries(scores.map((s) => [s.metric, s.value]));
    // Agent: a.py and b.py hold 3 nested functions (18); gold: b.py alone (6), its test file left out.
    expect(value).toMatchObject({
      cognitive: 18,
      delta_cognitive: 18,
      gold_cognitive: 6,
      gold_delta_cognitive: 6,
    });
    expect(typeof value.debt_minutes).toBe('number');
  });

  it('bins a chain into five progress bins: ⌈5k/n⌉', () => {
    expect([1, 2, 3, 4, 5, 6].map((k) => progressBin(k, 6, 5))).toEqual([1, 2, 3, 4, 5, 5]);
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((k) => progressBin(k, 11, 5))).toEqual([
      1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 5,
    ]);
    expect(binned([1, 2, 3, 4, 5, 7], 5)).toEqual([1, 2, 3, 4, 6]);
  });

  it('compares the agent with the gold trace per bin over chains longer than five PRs', () => {
    const cond = condition('conversation', 'global');
    const prs = (agent: number[], gold: number[]) =>
      agent.map((a, i) => ({
        passed: true,
        extra: {
          'swe-steps-health.cognitive': 0,
          'swe-steps-health.delta_cognitive': a,
          'swe-steps-health.gold_delta_cognitive': gold[i]!,
          'swe-steps-health.delta_debt_minutes': 2 * a,
          'swe-steps-health.gold_delta_debt_minutes': 0,
        },
      }));
    const trials = [
      trialOf('moto', 'm1', prs([1, 2, 3, 4, 5, 6], [1, 1, 0, 0, -1, -1]), cond),
      trialOf('moto', 'm2', prs([3, 4, 5, 6, 7, 8], [1, 1, 0, 0, -1, -1]), cond),
      // Five PRs: too short for the health curves.
      trialOf('conan', 'c1', prs([9, 9, 9, 9, 9], [0, 0, 0, 0, 0]), cond),
    ];
    const scores = healthScores(cond.key, trials, {
      label: 'swe-steps-health',
      minPrs: 6,
      bins: 5,
      repositoryOf: (spec) => (spec.task.metadata.sweSteps as { repository: string }).repository,
    });
    const value = Object.fromEntries(scores.map((s) => [s.metric, s.value]));
    expect(value.health_tasks).toBe(2);
    const detail = scores[0]!.detail as {
      cognitive: { agent: number[]; gold: number[]; gap: number[] };
      repositories: object;
    };
    expect(detail.cognitive.agent).toEqual([2, 3, 4, 5, 6.5]);
    expect(detail.cognitive.gold).toEqual([1, 1, 0, 0, -1]);
    expect(detail.cognitive.gap).toEqual([1, 2, 4, 5, 7.5]);
    expect(Object.keys(detail.repositories)).toEqual(['moto']);
    expect(value.health_cognitive_slope).toBe(4.5);
    expect(value.health_cognitive_gold_slope).toBe(-2);
    expect(value.health_cognitive_gap).toBeCloseTo(3.9);
    expect(value.health_debt_slope).toBe(9);
  });
});

describeScorer(
  'swe-steps-health',
  async () => ({
    scorer: new SweStepsHealthScorer(healthOptions.parse({})),
    context: await context(),
  }),
  { metrics: ['cognitive', 'debt_minutes', 'delta_cognitive', 'gold_delta_cognitive'] },
);
