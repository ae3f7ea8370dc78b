import type { ConditionScore, StepRecord, TrialRecord, TrialSpec } from '@longhaul/core';
import { describeScorer, instantiatePlugin, sampleTask } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import plugin, { phaseOf, SolveRatesScorer } from '../src/index.js';

type ExperimentScorer = {
  score(ctx: { trials: { spec: TrialSpec; record: TrialRecord }[] }): Promise<ConditionScore[]>;
};

interface StepPlan {
  status?: StepRecord['status'];
  strict?: number;
  iso?: number;
  core?: number;
  cost?: number;
  minutes?: number;
  erosion?: number;
  verbosity?: number;
}

/** A finished trial of `condition` over a task with one checkpoint per entry of `steps`. */
function trial(
  condition: string,
  id: string,
  steps: (StepPlan | undefined)[],
): { spec: TrialSpec; record: TrialRecord } {
  const task = sampleTask(steps.length);
  const records: StepRecord[] = [];
  for (const [index, plan] of steps.entries()) {
    if (!plan) continue;
    const scored = plan.strict !== undefined;
    records.push({
      index,
      id: task.steps[index]!.id,
      status: plan.status ?? 'ok',
      turns: 1,
      durationMs: (plan.minutes ?? 0) * 60_000,
      usage: {
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costUsd: plan.cost ?? 0,
      },
      scores: scored
        ? {
            'tests.strict': plan.strict!,
            'tests.iso': plan.iso ?? plan.strict!,
            'tests.core': plan.core ?? plan.iso ?? plan.strict!,
            'tests.pass_rate': plan.strict!,
            ...(plan.erosion === undefined ? {} : { 'quality.erosion': plan.erosion }),
            ...(plan.verbosity === undefined ? {} : { 'quality.verbosity': plan.verbosity }),
          }
        : {},
    });
  }
  const cost = records.reduce((sum, step) => sum + step.usage.costUsd, 0);
  return {
    spec: { id, task, condition: { key: condition } } as TrialSpec,
    record: {
      id,
      task: task.id,
      condition,
      repeat: 1,
      status: records.some((step) => step.status.startsWith('error:')) ? 'error:crash' : 'ok',
      durationMs: 0,
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: cost },
      steps: records,
      scores: {},
    },
  };
}

async function table(trials: ReturnType<typeof trial>[], options: Record<string, unknown> = {}) {
  const scorer = instantiatePlugin<ExperimentScorer>(plugin, options);
  const rows = new Map<string, Record<string, unknown>>();
  for (const score of await scorer.score({ trials })) {
    const row = rows.get(score.condition!) ?? {};
    row[score.metric] = score.value;
    rows.set(score.condition!, row);
  }
  return rows;
}

describe('phaseOf', () => {
  it("bins checkpoints as the paper's table does, earlier groups taking the remainder", () => {
    const bins = (count: number) => Array.from({ length: count }, (_, index) => phaseOf(index, count));
    expect(bins(3)).toEqual(['Start', 'Early', 'Final']);
    expect(bins(4)).toEqual(['Start', 'Early', 'Mid', 'Final']);
    expect(bins(5)).toEqual(['Start', 'Early', 'Mid', 'Late', 'Final']);
    expect(bins(6)).toEqual(['Start', 'Early', 'Early', 'Mid', 'Late', 'Final']);
    expect(bins(8)).toEqual(['Start', 'Early', 'Early', 'Mid', 'Mid', 'Late', 'Late', 'Final']);
    expect(bins(2)).toEqual(['Start', 'Final']);
  });
});

describe('solve-rates', () => {
  // Condition a: one trajectory solves everything; one crashes in its second checkpoint.
  const solved = trial('a', 'a1', [
    { strict: 1, cost: 1, minutes: 2, erosion: 0.2, verbosity: 0.3 },
    { strict: 1, cost: 2, minutes: 4, erosion: 0.4, verbosity: 0.2 },
    { strict: 1, cost: 3, minutes: 6, erosion: 0.5, verbosity: 0.4 },
  ]);
  const crashed = trial('a', 'a2', [
    { strict: 0, iso: 1, core: 1, cost: 5, minutes: 8, erosion: 0.6, verbosity: 0.1 },
    { status: 'error:crash', cost: 0.5, minutes: 1 },
    undefined,
  ]);
  // Condition b: nothing strict; the regression-free rate and core differ.
  const partial = trial('b', 'b1', [
    { strict: 0, iso: 0, core: 1, cost: 1, minutes: 1, erosion: 0.5, verbosity: 0.5 },
    { strict: 0, iso: 1, core: 1, cost: 1, minutes: 1, erosion: 0.4, verbosity: 0.6 },
    { strict: 0, iso: 0, core: 0, cost: 1, minutes: 1, erosion: 0.3, verbosity: 0.7 },
  ]);

  it('reports strict / iso / core over produced checkpoints; a crash leaves its checkpoints out', async () => {
    const rows = await table([solved, crashed, partial]);
    expect(rows.get('a')).toMatchObject({
      strict: 3 / 4,
      iso: 4 / 4,
      core: 4 / 4,
      // Over the trajectories no fault cut short: the crashed one says nothing of full solving.
      partial: 1,
      full: 1,
      problems: 2,
      'problems.scored': 1,
      'checkpoints.produced': 4,
      'checkpoints.all': 6,
      'checkpoints.scored': 4,
      'checkpoints.errored': 2,
      'checkpoints.cancelled': 0,
      'phase.Early.errored': 1,
      'phase.Final.errored': 1,
      'denominator.produced': true,
    });
    expect(rows.get('b')).toMatchObject({ strict: 0, iso: 1 / 3, core: 2 / 3, partial: 0 });
  });

  it('with denominator all, checkpoints a limit kept the agent from count as unsolved, faults and cancels never', async () => {
    const timedOut = trial('a', 'a3', [{ strict: 1 }, { status: 'timeout' }, undefined]);
    const cancelled = trial('a', 'a4', [{ status: 'cancelled' }, undefined, undefined]);
    cancelled.record.status = 'cancelled';
    const rows = await table([solved, crashed, timedOut, cancelled], { denominator: 'all' });
    expect(rows.get('a')).toMatchObject({
      strict: 4 / 7,
      iso: 5 / 7,
      core: 5 / 7,
      'checkpoints.scored': 7,
      'checkpoints.errored': 2,
      'checkpoints.cancelled': 3,
      'denominator.produced': false,
    });
  });

  it('gives cost and minutes per produced checkpoint (mean ± sample std) and the net cost of everything', async () => {
    const row = (await table([solved, crashed])).get('a')!;
    expect(row['cost.mean']).toBeCloseTo(11 / 4);
    expect(row['cost.std']).toBeCloseTo(
      Math.sqrt(((1 - 2.75) ** 2 + (2 - 2.75) ** 2 + (3 - 2.75) ** 2 + (5 - 2.75) ** 2) / 3),
    );
    expect(row['cost.net']).toBeCloseTo(11.5);
    expect(row['minutes.mean']).toBeCloseTo(5);
  });

  it('averages erosion and verbosity over produced checkpoints only, and counts rising trajectories', async () => {
    const a = (await table([solved, crashed])).get('a')!;
    expect(a['erosion.mean']).toBeCloseTo((0.2 + 0.4 + 0.5 + 0.6) / 4);
    expect(a['verbosity.mean']).toBeCloseTo((0.3 + 0.2 + 0.4 + 0.1) / 4);
    // Only the full trajectory has two quality points: erosion 0.2 → 0.5 rises, verbosity 0.3 → 0.4 rises.
    expect(a).toMatchObject({ 'erosion.rises': 1, 'verbosity.rises': 1 });
    const b = (await table([partial])).get('b')!;
    expect(b).toMatchObject({ 'erosion.rises': 0, 'verbosity.rises': 1 });
  });

  it('breaks solve rates, cost and quality down by progress phase', async () => {
    const a = (await table([solved, crashed])).get('a')!;
    expect(a).toMatchObject({
      'phase.Start.checkpoints': 2,
      'phase.Start.strict': 1 / 2,
      'phase.Start.core': 1,
      'phase.Early.checkpoints': 1,
      'phase.Final.strict': 1,
      'phase.Mid.checkpoints': 0,
      'phase.Mid.strict': null,
      'strict.final': 1,
    });
    expect(a['phase.Start.cost']).toBeCloseTo(3);
    expect(a['phase.Start.erosion']).toBeCloseTo(0.4);
  });
});

describeScorer(
  'solve-rates',
  async () => ({
    scorer: new SolveRatesScorer(plugin.options.parse({})),
    context: {
      trials: [
        trial('c', 'c1', [{ strict: 1, cost: 1, minutes: 1, erosion: 0.1, verbosity: 0.2 }, { strict: 0 }]),
      ],
    },
  }),
  { metrics: ['strict', 'iso', 'core', 'partial', 'cost.mean', 'erosion.mean', 'phase.Final.strict'] },
);
