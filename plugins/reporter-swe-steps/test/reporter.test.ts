import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConditionScore, Reporter } from '@longhaul/core';
import { describeReporter, instantiatePlugin } from '@longhaul/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

type Scored = ConditionScore & { scorer: string };

const repo = (prs: number, passed: number, tasks: number, completed: number, p2p: number, f2p: number) => ({
  prs,
  prs_passed: passed,
  pr_success: (100 * passed) / prs,
  tasks,
  tasks_completed: completed,
  p2p,
  f2p,
  usd_per_task: null,
});

function condition(
  key: string,
  setting: string,
  values: Record<string, number | null>,
  extra: Scored[] = [],
): Scored[] {
  const detail = {
    setting,
    repositories: {
      conan: repo(10, setting === 'individual' ? 8 : 10, 2, setting === 'individual' ? 0 : 2, 92.47, 87.5),
      haystack: repo(7, setting === 'individual' ? 7 : 6, 2, setting === 'individual' ? 2 : 1, 100, 100),
    },
    chainLength: { '5': { prs: 10, passed: 8, pr_success: 80 } },
    suiteSize: {
      '11-50': { prs: 4, passed: 1, pr_success: 25 },
      '1-10': { prs: 13, passed: 13, pr_success: 100 },
    },
  };
  return [
    ...Object.entries(values).map(([metric, value]) => ({
      condition: key,
      metric,
      value,
      scorer: 'swe-steps-rates',
      ...(metric === 'pr_success' ? { detail } : {}),
    })),
    ...extra,
  ];
}

const curves = (agent: number[], gold: number[]) => ({ agent, gold, gap: agent.map((a, i) => a - gold[i]!) });
const health: Scored = {
  condition: 'claude/global/none',
  metric: 'health_tasks',
  value: 2,
  scorer: 'swe-steps-rates',
  detail: {
    cognitive: curves([1, 2, 3, 4, 6], [1, 1, 0, 0, -1]),
    debt: curves([0, 5, 5, 10, 40], [0, 0, 0, 0, 0]),
    repositories: {
      moto: {
        cognitive: curves([1, 2, 3, 4, 6], [1, 1, 0, 0, -1]),
        debt: curves([0, 5, 5, 10, 40], [0, 0, 0, 0, 0]),
      },
    },
  },
};

const scores: Scored[] = [
  ...condition('claude/individual/none', 'individual', {
    prs: 80,
    prs_passed: 53,
    pr_success: 66.25,
    tasks: 15,
    tasks_completed: 2,
    f2p: 75.93,
    p2p: 91.86,
    usd_per_task: 14.27,
    inflation_global: 22.5,
    inflation_prd: 21.25,
  }),
  ...condition(
    'claude/global/none',
    'global',
    {
      prs: 80,
      prs_passed: 35,
      pr_success: 43.75,
      tasks: 15,
      tasks_completed: 3,
      f2p: 52.41,
      p2p: 84.57,
      usd_per_task: 21.46,
    },
    [health],
  ),
  { condition: 'x', metric: 'strict', value: 1, scorer: 'solve-rates' },
];

async function report(experimentScores: Scored[]) {
  const runDir = await mkdtemp(join(tmpdir(), 'longhaul-swe-steps-report-'));
  dirs.push(runDir);
  const printed: string[] = [];
  await instantiatePlugin<Reporter>(plugin, {}).finish({
    runDir,
    experiment: { name: 'x', file: 'x.yaml' },
    trials: [],
    experimentScores,
    print: (text) => printed.push(text),
  });
  return { text: printed.join('\n'), runDir };
}

describe('reporter swe-steps', () => {
  it("prints Table 3's and Table 8's shape, the inflation and the health bins with the gold trace", async () => {
    const { text, runDir } = await report(scores);
    expect(text).toMatch(
      /condition\s+setting\s+conan\s+haystack\s+PRs passed\s+PRs not judged\s+PRs errored\s+PRs cancelled\s+PR success %\s+tasks completed\s+tasks not judged\s+\$\/task/,
    );
    expect(text).toMatch(
      /claude\/individual\/none\s+individual\s+8\/10,0\/2\s+7\/7,2\/2\s+53\/80\s+–\s+–\s+–\s+66\.25\s+2\/15\s+–\s+14\.27/,
    );
    expect(text).toMatch(
      /claude\/global\/none\s+global\s+10\/10,2\/2\s+6\/7,1\/2\s+35\/80\s+–\s+–\s+–\s+43\.75\s+3\/15\s+–\s+21\.46/,
    );
    expect(text).toMatch(/claude\/individual\/none\s+92\.47\/87\.50\s+100\.00\/100\.00\s+91\.86\s+75\.93/);
    expect(text).toMatch(/claude\/individual\/none\s+\+22\.50\s+\+21\.25/);
    // Suite-size bins in numeric order.
    expect(text).toMatch(/condition\s+1-10\s+11-50/);
    expect(text).toMatch(
      /claude\/global\/none\s+moto\s+gold trace\s+1\.0\s+1\.0\s+0\.0\s+0\.0\s+-1\.0\s+-2\.0/,
    );
    expect(text).toMatch(
      /claude\/global\/none\s+all\s+agent − gold\s+0\.0\s+1\.0\s+3\.0\s+4\.0\s+7\.0\s+7\.0/,
    );
    expect(text).not.toContain('solve-rates');
    const file = JSON.parse(await readFile(join(runDir, 'swe-steps.json'), 'utf8'));
    expect(file.map((row: { condition: string }) => row.condition)).toEqual([
      'claude/global/none',
      'claude/individual/none',
    ]);
  });

  it('shows errored and cancelled PRs beside success over the scored ones, and a repository without tasks as missing', async () => {
    const detail = {
      setting: 'global',
      repositories: {
        conan: { ...repo(3, 3, 3, 1, 100, 100), prs_errored: 2, prs_cancelled: 2, tasks_whole: 1 },
      },
      chainLength: {},
      suiteSize: {},
    };
    const values = {
      prs: 3,
      prs_passed: 3,
      prs_errored: 2,
      prs_cancelled: 2,
      pr_success: 100,
      tasks: 3,
      tasks_whole: 1,
      tasks_completed: 1,
      usd_per_task: 0.5,
    };
    const { text } = await report([
      ...scores,
      ...Object.entries(values).map(([metric, value]) => ({
        condition: 'agent/global/none',
        metric,
        value,
        scorer: 'swe-steps-rates',
        ...(metric === 'pr_success' ? { detail } : {}),
      })),
    ]);
    expect(text).toMatch(
      /^agent\/global\/none\s+global\s+3\/3,1\/1\s+missing\s+3\/3\s+–\s+2\s+2\s+100\.00\s+1\/1\s+–\s+0\.50$/m,
    );
    expect(text).toMatch(/^agent\/global\/none\s+100\.00\/100\.00\s+missing\s+–\s+–$/m);
    expect(text).toContain("'missing': the run has no trial of that condition");
    expect(text).not.toContain('PRs not judged:');
  });

  it('counts PRs and tasks not judged apart from PR success, and says why in the legend', async () => {
    const detail = {
      setting: 'prd',
      repositories: { sqlparse: { ...repo(5, 0, 3, 0, 100, 0), prs_not_judged: 10, tasks_whole: 3 } },
      chainLength: {},
      suiteSize: {},
    };
    const values = {
      prs: 5,
      prs_passed: 0,
      prs_not_judged: 10,
      prs_errored: 0,
      prs_cancelled: 0,
      pr_success: 0,
      tasks: 3,
      tasks_whole: 3,
      tasks_completed: 0,
      tasks_not_judged: 0,
      usd_per_task: 0,
    };
    const { text } = await report(
      Object.entries(values).map(([metric, value]) => ({
        condition: 'nochange/prd/none',
        metric,
        value,
        scorer: 'swe-steps-rates',
        ...(metric === 'pr_success' ? { detail } : {}),
      })),
    );
    expect(text).toMatch(
      /^nochange\/prd\/none\s+prd\s+0\/5,0\/3\s+0\/5\s+10\s+0\s+0\s+0\.00\s+0\/3\s+0\s+0\.00$/m,
    );
    expect(text).toContain('PRs not judged: scored PRs with no F2P test left to judge them on');
    expect(text).toContain('PR success % and tasks completed are over judged PRs');
  });

  it('gives the report a SWE-STEPS section: Tables 3 and 8 leading with PR success, health against the gold trace as curves', async () => {
    const figures = await instantiatePlugin<Reporter>(plugin, {}).figures!({
      runDir: '/tmp',
      experiment: { name: 'x', file: 'x.yaml' },
      trials: [],
      experimentScores: scores,
      print: () => {},
    });
    expect(new Set(figures.map((figure) => figure.section))).toEqual(new Set(['SWE-STEPS']));
    expect(figures.filter((figure) => figure.lead).map((figure) => figure.id)).toEqual(['success']);
    const cognitive = figures.find((figure) => figure.id === 'health.cognitive.plot');
    if (cognitive?.kind !== 'plot') throw new Error('no cognitive complexity plot');
    const series = new Set(cognitive.data.map((point) => point.series));
    expect(series).toContain('claude/global/none gold trace');
    expect(series).toContain('claude/global/none agent');
  });

  it('says what to add when the experiment has no swe-steps-rates scores', async () => {
    const { text } = await report([]);
    expect(text).toContain("no scores from scorer 'swe-steps-rates'");
  });
});

describeReporter('swe-steps', () => instantiatePlugin<Reporter>(plugin, {}));
