import type { ConditionScore } from '@longhaul/core';
import { describeScorer } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import { ratesOptions, SweStepsRatesScorer, SweStepsTaskScorer, sizeBin, taskOptions } from '../src/index.js';
import { chain, condition, type PrScores, trialOf } from './trials.js';

const scorer = new SweStepsRatesScorer(ratesOptions.parse({}));
const individual = condition('isolated', 'individual');
const global = condition('conversation', 'global');
const prd = condition('single-shot', 'prd');

/** SWE-STEPS-Mini's chains (PRs per task, by repository), as the paper's denominators give them. */
const mini: Record<string, number[]> = {
  conan: [5, 5],
  dvc: [4, 4],
  haystack: [3, 4],
  moto: [7, 8],
  pandas: [4, 4, 4, 4, 4],
  sqlglot: [10, 10],
};

/** PRs passed per task of each repository (Table 3's Claude Sonnet 4.5 rows spread over tasks). */
const claudeIndividual: Record<string, number[]> = {
  conan: [4, 4],
  dvc: [2, 1],
  haystack: [3, 4],
  moto: [5, 5],
  pandas: [3, 2, 2, 2, 2],
  sqlglot: [7, 7],
};
const claudeGlobal: Record<string, number[]> = {
  conan: [5, 5],
  dvc: [2, 0],
  haystack: [3, 3],
  moto: [6, 0],
  pandas: [3, 3, 1, 0, 0],
  sqlglot: [4, 0],
};

function run(cond: typeof individual, passes: Record<string, number[]>, usd = 0) {
  return Object.entries(mini).flatMap(([repo, lengths]) =>
    lengths.map((length, t) =>
      trialOf(repo, `${repo}-${t + 1}`, chain(length, passes[repo]![t]!), cond, usd),
    ),
  );
}

const value = (scores: ConditionScore[], cond: string, metric: string) =>
  scores.find((s) => s.condition === cond && s.metric === metric)?.value;

describe('swe-steps-rates: the paper worked figures', () => {
  it('PR success 53/80 = 66.25 %, tasks completed, $ per task and the inflation over global', async () => {
    const scores = await scorer.score({
      trials: [...run(individual, claudeIndividual, 14.27), ...run(global, claudeGlobal, 21.46)],
    });
    expect(value(scores, individual.key, 'prs_passed')).toBe(53);
    expect(value(scores, individual.key, 'prs')).toBe(80);
    expect(value(scores, individual.key, 'pr_success')).toBe(66.25);
    expect(value(scores, individual.key, 'tasks_completed')).toBe(2);
    expect(value(scores, individual.key, 'tasks')).toBe(15);
    expect(value(scores, individual.key, 'usd_per_task')).toBeCloseTo(14.27);
    expect(value(scores, global.key, 'pr_success')).toBe(43.75);
    expect(value(scores, global.key, 'tasks_completed')).toBe(3);
    // Individual − global, in points: the paper's "inflation" of 22.5.
    expect(value(scores, individual.key, 'inflation_global')).toBeCloseTo(22.5);
    expect(value(scores, individual.key, 'inflation_prd')).toBeUndefined();
    const detail = scores.find((s) => s.condition === individual.key && s.metric === 'pr_success')!
      .detail as {
      setting: string;
      repositories: Record<string, { prs_passed: number; tasks_completed: number }>;
    };
    expect(detail.setting).toBe('individual');
    expect(detail.repositories.haystack).toMatchObject({ prs_passed: 7, tasks_completed: 2 });
  });

  it('pools per-test rates over tests, not repositories: F2P 120/187 = 64.17 %, P2P 74.22 %', async () => {
    // Table 8, Gemini 3 Pro, individual: per-repository F2P and P2P passed / total.
    const tests: Record<string, { f2p: [number, number]; p2p: [number, number] }> = {
      conan: { f2p: [8, 8], p2p: [145, 146] },
      dvc: { f2p: [8, 16], p2p: [114, 170] },
      haystack: { f2p: [62, 64], p2p: [80, 80] },
      moto: { f2p: [13, 31], p2p: [610, 954] },
      pandas: { f2p: [21, 50], p2p: [366, 650] },
      sqlglot: { f2p: [8, 18], p2p: [772, 812] },
    };
    const trials = Object.entries(tests).map(([repo, counts]) =>
      trialOf(repo, `${repo}-1`, [{ passed: false, ...counts }, ...chain(2, 0)], individual),
    );
    const scores = await scorer.score({ trials });
    expect(value(scores, individual.key, 'f2p')).toBeCloseTo(64.17, 2);
    expect(value(scores, individual.key, 'p2p')).toBeCloseTo(74.22, 2);
    // The mean of the repositories' rates would be 63.5 %: the pooled figure is the paper's.
    const repositories = (
      scores.find((s) => s.metric === 'pr_success')!.detail as {
        repositories: Record<string, { f2p: number }>;
      }
    ).repositories;
    expect(repositories.dvc!.f2p).toBe(50);
  });

  it('bins success by chain length and by active suite size, and compares each setting of one agent', async () => {
    const sized = (size: number, passed: boolean): PrScores => ({
      passed,
      extra: { 'swe-steps.suite_size': size },
    });
    const trials = [
      trialOf('r', 'short', [sized(4, true), sized(8, true), sized(12, false)], individual),
      trialOf(
        'r',
        'long',
        [sized(30, true), sized(60, false), sized(90, false), sized(600, false)],
        individual,
      ),
      trialOf('r', 'short', chain(3, 1), prd),
      trialOf('r', 'long', chain(4, 1), prd),
      trialOf('r', 'short', chain(3, 3), condition('single-shot', 'prd', 'other')),
    ];
    const scores = await scorer.score({ trials });
    const detail = scores.find((s) => s.condition === individual.key && s.metric === 'pr_success')!
      .detail as {
      chainLength: Record<string, { prs: number; passed: number }>;
      suiteSize: Record<string, { prs: number; passed: number; pr_success: number }>;
    };
    expect(detail.chainLength).toEqual({
      '3': { prs: 3, passed: 2, pr_success: (100 * 2) / 3 },
      '4': { prs: 4, passed: 1, pr_success: 25 },
    });
    expect(detail.suiteSize).toEqual({
      '1-10': { prs: 2, passed: 2, pr_success: 100 },
      '11-50': { prs: 2, passed: 1, pr_success: 50 },
      '51-100': { prs: 2, passed: 0, pr_success: 0 },
      '>500': { prs: 1, passed: 0, pr_success: 0 },
    });
    // Individual 3/7 against PRD 2/7 for the same agent; the other agent's PRD is not its partner.
    expect(value(scores, individual.key, 'inflation_prd')).toBeCloseTo(100 / 7);
    expect(sizeBin(10, [10, 50])).toBe('1-10');
    expect(sizeBin(11, [10, 50])).toBe('11-50');
    expect(sizeBin(51, [10, 50])).toBe('>50');
  });
});

describeScorer(
  'swe-steps-rates',
  async () => ({ scorer, context: { trials: run(individual, claudeIndividual) } }),
  {
    metrics: ['pr_success', 'prs_passed', 'tasks_completed', 'f2p', 'p2p', 'usd_per_task'],
  },
);

describe('swe-steps-rates: faults and cancels', () => {
  it('counts errored and cancelled PRs beside PR success over the scored ones, never as failed', async () => {
    const passed = { passed: true, f2p: [1, 1] as [number, number] };
    const whole = trialOf('conan', 'conan-1', [passed, passed], individual);
    // A model fault on the second PR: the third is never reached.
    const faulted = trialOf('conan', 'conan-2', [passed, passed, passed], individual);
    faulted.record.status = 'error:model';
    faulted.record.steps = [
      faulted.record.steps[0]!,
      { ...faulted.record.steps[1]!, status: 'error:model', scores: {} },
    ];
    const stopped = trialOf('dvc', 'dvc-1', [passed, passed], individual);
    stopped.record.status = 'cancelled';
    stopped.record.steps = [];
    const scores = await scorer.score({ trials: [whole, faulted, stopped] });
    expect(value(scores, individual.key, 'prs')).toBe(3);
    expect(value(scores, individual.key, 'prs_passed')).toBe(3);
    expect(value(scores, individual.key, 'pr_success')).toBe(100);
    expect(value(scores, individual.key, 'prs_errored')).toBe(2);
    expect(value(scores, individual.key, 'prs_cancelled')).toBe(2);
    expect(value(scores, individual.key, 'tasks')).toBe(3);
    expect(value(scores, individual.key, 'tasks_whole')).toBe(1);
    expect(value(scores, individual.key, 'tasks_completed')).toBe(1);
    const detail = scores.find((s) => s.condition === individual.key && s.metric === 'pr_success')!
      .detail as {
      repositories: Record<string, { prs: number; prs_cancelled: number; pr_success: number | null }>;
      chainLength: Record<string, { prs: number }>;
    };
    expect(detail.repositories.dvc).toMatchObject({ prs: 0, prs_cancelled: 2, pr_success: null });
    expect(detail.chainLength).toEqual({
      '2': { prs: 2, passed: 2, pr_success: 100 },
      '3': { prs: 1, passed: 1, pr_success: 100 },
    });
  });
});

describe('swe-steps-rates: PRs not judged', () => {
  // PRD, where later commits rewrote the modules of every F2P test of some PRs: their success is
  // no value (null), their F2P lists empty, their P2P still run.
  const notJudged: PrScores = {
    passed: false,
    f2p: [0, 0],
    p2p: [2, 2],
    extra: { 'swe-steps.success': null },
  };
  const failed: PrScores = { passed: false, f2p: [0, 3], p2p: [1, 1] };
  const solved: PrScores = { passed: true, f2p: [3, 3], p2p: [1, 1] };

  it('counts them apart: PR success and tasks completed are over judged PRs only', async () => {
    const nochange = condition('single-shot', 'prd', 'nochange');
    const oracle = condition('single-shot', 'prd', 'oracle');
    const scores = await scorer.score({
      trials: [
        trialOf('sqlparse', 'chain-1', [notJudged, notJudged, failed], nochange),
        trialOf('sqlparse', 'chain-2', [notJudged, notJudged], nochange),
        trialOf('sqlparse', 'chain-1', [notJudged, notJudged, solved], oracle),
        trialOf('sqlparse', 'chain-2', [notJudged, notJudged], oracle),
      ],
    });
    // Before, the do-nothing agent passed the four PRs with nothing to judge: 4/5 = 80 %.
    expect(value(scores, nochange.key, 'prs')).toBe(1);
    expect(value(scores, nochange.key, 'prs_passed')).toBe(0);
    expect(value(scores, nochange.key, 'pr_success')).toBe(0);
    expect(value(scores, nochange.key, 'prs_not_judged')).toBe(4);
    expect(value(scores, nochange.key, 'tasks_whole')).toBe(1);
    expect(value(scores, nochange.key, 'tasks_completed')).toBe(0);
    expect(value(scores, nochange.key, 'tasks_not_judged')).toBe(1);
    expect(value(scores, nochange.key, 'f2p')).toBe(0);
    expect(value(scores, nochange.key, 'p2p_total')).toBe(9);
    expect(value(scores, oracle.key, 'pr_success')).toBe(100);
    expect(value(scores, oracle.key, 'tasks_completed')).toBe(1);
    expect(value(scores, oracle.key, 'tasks_whole')).toBe(1);
    const detail = scores.find((s) => s.condition === nochange.key && s.metric === 'pr_success')!.detail as {
      repositories: Record<string, { prs: number; prs_not_judged: number; tasks_not_judged: number }>;
      chainLength: Record<string, { prs: number }>;
    };
    expect(detail.repositories.sqlparse).toMatchObject({ prs: 1, prs_not_judged: 4, tasks_not_judged: 1 });
    expect(detail.chainLength).toEqual({ '3': { prs: 1, passed: 0, pr_success: 0 } });
  });

  it('a task succeeds when its judged PRs do; with none judged it has no success', async () => {
    const task = new SweStepsTaskScorer(taskOptions.parse({}));
    const prd = condition('single-shot', 'prd');
    const score = async (prs: PrScores[]) => {
      const { spec, record } = trialOf('sqlparse', 'chain', prs, prd);
      const scores = await task.score({
        trial: spec,
        record,
        events: [],
        snapshots: undefined!,
        trialDir: '',
      });
      return Object.fromEntries(scores.map((s) => [s.metric, s.value]));
    };
    expect(await score([notJudged, solved])).toEqual({
      success: 1,
      prs_passed: 1,
      prs: 2,
      prs_not_judged: 1,
    });
    expect(await score([notJudged, failed])).toMatchObject({ success: 0, prs_not_judged: 1 });
    expect(await score([notJudged, notJudged])).toMatchObject({ success: null, prs_passed: 0 });
  });
});
