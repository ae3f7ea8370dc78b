import { mkdir } from 'node:fs/promises';
import { emptyUsage, RunStore, type TrialScoreContext } from '@longhaul/core';
import { describeScorer, FakeSnapshotStore } from '@longhaul/testkit';
import { openTestGateway, scriptedModel } from '@longhaul/testkit/gateway';
import { afterEach, describe, expect, it } from 'vitest';
import { attributionOptions, SweStepsAttributionScorer } from '../src/index.js';
import { chain, condition, trialOf } from './trials.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const dispose of cleanup.splice(0)) await dispose();
});

const label = (category: string, explanation: string) => JSON.stringify({ category, explanation });

/** A finished global trial whose PR 2 and 3 failed, with their scores.json and traces in a run store. */
async function context(
  replies: unknown[],
): Promise<{ ctx: TrialScoreContext; scorer: SweStepsAttributionScorer }> {
  const { gateway, runDir, dispose } = await openTestGateway({ judge: scriptedModel(replies) });
  cleanup.push(dispose);
  const { spec, record } = trialOf('pandas', 'pandas-1', chain(3, 1), condition('conversation', 'global'));
  spec.runDir = runDir;
  spec.task.steps.forEach((step, i) => {
    step.prompt = ['Support NamedAgg in groupby.', 'Fix json_normalize with max_level.', 'Add div.'][i]!;
  });
  const store = new RunStore(runDir);
  for (const step of spec.task.steps.slice(1)) {
    await mkdir(store.stepDir(spec.id, step), { recursive: true });
    await store.writeStepScores(spec.id, step, {
      step: step.id,
      index: step.index,
      status: 'ok',
      scores: record.steps[step.index]!.scores,
      details: {
        'swe-steps': {
          success: {
            pr: step.index + 1,
            f2p: { [`tests/test_${step.index}.py::test_new`]: 'failed' },
            p2p: {},
          },
        },
      },
      turns: 1,
      usage: emptyUsage(),
      durationMs: 0,
    });
    const trajectory = store.trajectory(spec.id, step);
    trajectory.append({
      type: 'message',
      role: 'assistant',
      text: `Working on NamedAgg again (step ${step.index + 1}).`,
    });
    trajectory.append({
      type: 'tool.call',
      id: 'c1',
      name: 'edit_file',
      input: { path: 'pandas/core/groupby.py' },
    });
  }
  return {
    ctx: {
      trial: spec,
      record,
      events: [],
      snapshots: new FakeSnapshotStore(),
      trialDir: store.trialDir(spec.id),
    },
    scorer: new SweStepsAttributionScorer(attributionOptions.parse({}), () => gateway),
  };
}

const replies = [
  {
    when: 'Failed pull request: pr-2',
    text: label('Solving Previous Issues', 'It implemented NamedAgg from the first request again.'),
  },
  { when: 'Failed pull request: pr-3', text: label('Gave Up Prematurely', 'It stopped after one edit.') },
];

describe('swe-steps-attribution', () => {
  it('labels each failed PR from its request, the earlier ones, its failing tests and its trace', async () => {
    const { ctx, scorer } = await context(replies);
    const scores = await scorer.score(ctx);
    const value = Object.fromEntries(scores.map((s) => [s.metric, s.value]));
    expect(value).toMatchObject({
      failed_prs: 2,
      solving_previous_issues: 1,
      gave_up_prematurely: 1,
      cant_reproduce: 0,
    });
    expect(scores[0]!.detail).toEqual([
      {
        step: 'pr-2',
        category: 'Solving Previous Issues',
        explanation: 'It implemented NamedAgg from the first request again.',
      },
      { step: 'pr-3', category: 'Gave Up Prematurely', explanation: 'It stopped after one edit.' },
    ]);
  });

  it('fails with a clear message when no gateway runs', async () => {
    const { ctx } = await context(replies);
    const scorer = new SweStepsAttributionScorer(attributionOptions.parse({}), () => undefined);
    await expect(scorer.score(ctx)).rejects.toThrow(/no model gateway runs.*'judge'/);
  });
});

describeScorer(
  'swe-steps-attribution',
  async () => {
    const { ctx, scorer } = await context([...replies, ...replies]);
    return { scorer, context: ctx };
  },
  { metrics: ['failed_prs', 'solving_previous_issues', 'incorrect_implementation'] },
);
