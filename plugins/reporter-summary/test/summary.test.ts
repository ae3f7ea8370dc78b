import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReportContext } from '@longhaul/core';
import { describeReporter, testFolder } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import plugin, { formatDuration, type RunSummary, SummaryReporter, wallTime } from '../src/index.js';
import { trials } from './fixture.js';

async function report(
  order: (list: ReturnType<typeof trials>) => ReturnType<typeof trials> = (list) => list,
  options: Record<string, unknown> = {},
) {
  const runDir = await testFolder('longhaul-summary-');
  const printed: string[] = [];
  const context: ReportContext = {
    runDir,
    experiment: { name: 'quickstart', file: '/experiments/quickstart.yaml' },
    trials: order(trials()),
    experimentScores: [
      { scorer: 'passk', metric: 'pass_at_1', value: 0.5, condition: 'agent' },
      { scorer: 'passk', metric: 'pass_at_1.wilson_low', value: 0.237, condition: 'agent' },
      { scorer: 'passk', metric: 'pass_at_1.wilson_high', value: 0.763, condition: 'agent' },
      { scorer: 'gap', metric: 'control', value: 0.25 },
      { scorer: 'passk', metric: 'tasks', value: 2, condition: 'agent' },
      { scorer: 'passk', metric: 'pass_at_1', value: 1, condition: 'oracle' },
      { scorer: 'passk', metric: 'pass_at_1.wilson_low', value: 0.207, condition: 'oracle' },
      { scorer: 'passk', metric: 'pass_at_1.wilson_high', value: 1, condition: 'oracle' },
      { scorer: 'passk', metric: 'tasks', value: 1, condition: 'oracle' },
    ],
    print: (text) => printed.push(text),
  };
  const reporter = new SummaryReporter(plugin.options.parse(options));
  await reporter.finish(context);
  const text = await readFile(join(runDir, 'summary.json'), 'utf8');
  return {
    runDir,
    printed,
    text,
    summary: JSON.parse(text) as RunSummary,
    figures: reporter.figures(context),
  };
}

describeReporter('summary', () => new SummaryReporter(plugin.options.parse({})));

describe('reporter summary', () => {
  it('lists every trial with every planned step; steps never reached are skipped', async () => {
    const { summary, runDir } = await report();
    expect(summary.experiment).toEqual({ name: 'quickstart', file: '/experiments/quickstart.yaml' });
    expect(summary.runDir).toBe(runDir);
    expect(summary.trials.map((trial) => trial.id)).toEqual([
      'worklog.agent.r1',
      'worklog.agent.r2',
      'worklog.oracle.r1',
    ]);
    expect(summary.trials[1]).toEqual({
      id: 'worklog.agent.r2',
      task: 'worklog',
      condition: 'agent',
      repeat: 2,
      status: 'error:crash',
      startedAt: '2026-01-01T12:00:30.000Z',
      durationMs: 60_000,
      usage: { inputTokens: 100, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.5 },
      steps: [
        {
          index: 0,
          id: 'csv',
          status: 'ok',
          scores: { 'tests.core': 1, 'tests.iso': 1, 'tests.pass_rate': 1, 'tests.strict': 1 },
        },
        { index: 1, id: 'jsonl', status: 'error:crash', scores: { 'tests.iso': null, 'tests.strict': null } },
        { index: 2, id: 'store', status: 'skipped', scores: {} },
      ],
      scores: { 'tests.solved_steps': 2 },
    });
  });

  it('gives solve rates over scored steps, errored steps beside them, cost, time and score means per condition', async () => {
    const { summary } = await report();
    expect(summary.conditions).toEqual([
      {
        condition: 'agent',
        trials: 2,
        tasks: ['worklog'],
        steps: 6,
        scored: 4,
        errored: 2,
        errorClasses: { crash: 2 },
        cancelled: 0,
        solveRates: { strict: 2 / 4, iso: 3 / 4, core: 3 / 4 },
        toolFailures: null,
        tampered: null,
        costUsd: 2,
        durationMs: 120_000,
        wallMs: 90_000,
        scores: {
          'tests.core': 3 / 4,
          'tests.iso': 3 / 4,
          'tests.pass_rate': (1 + 0.5 + 0.25 + 1) / 4,
          'tests.solved_steps': 2.5,
          'tests.strict': 2 / 4,
        },
        skipped: {},
      },
      {
        condition: 'oracle',
        trials: 1,
        tasks: ['worklog'],
        steps: 3,
        scored: 3,
        errored: 0,
        errorClasses: {},
        cancelled: 0,
        solveRates: { strict: 1, iso: 1, core: 1 },
        toolFailures: null,
        tampered: null,
        costUsd: 0,
        durationMs: 60_000,
        wallMs: 60_000,
        scores: {
          'tests.core': 1,
          'tests.iso': 1,
          'tests.pass_rate': 1,
          'tests.solved_steps': 3,
          'tests.strict': 1,
        },
        skipped: {},
      },
    ]);
    expect(summary).toMatchObject({ wallMs: 120_000, durationMs: 180_000 });
    expect(summary.experimentScores).toEqual([
      { key: 'gap.control', condition: null, value: 0.25 },
      { key: 'passk.pass_at_1', condition: 'agent', value: 0.5 },
      { key: 'passk.pass_at_1.wilson_high', condition: 'agent', value: 0.763 },
      { key: 'passk.pass_at_1.wilson_low', condition: 'agent', value: 0.237 },
      { key: 'passk.tasks', condition: 'agent', value: 2 },
      { key: 'passk.pass_at_1', condition: 'oracle', value: 1 },
      { key: 'passk.pass_at_1.wilson_high', condition: 'oracle', value: 1 },
      { key: 'passk.pass_at_1.wilson_low', condition: 'oracle', value: 0.207 },
      { key: 'passk.tasks', condition: 'oracle', value: 1 },
    ]);
  });

  it('gives the report the per-condition table with the values of summary.json', async () => {
    const { summary, figures } = await report();
    expect(figures).toHaveLength(1);
    const [table] = figures;
    if (table?.kind !== 'table') throw new Error('not a table');
    expect(table.rows).toEqual(
      summary.conditions.map((condition) => ({
        condition: condition.condition,
        trials: condition.trials,
        steps: condition.steps,
        scored: condition.scored,
        errored: condition.errored,
        cancelled: condition.cancelled,
        strict: condition.solveRates.strict,
        iso: condition.solveRates.iso,
        core: condition.solveRates.core,
        costUsd: condition.costUsd,
        durationMs: condition.durationMs,
        wallMs: condition.wallMs,
      })),
    );
    expect(table.columns.find((column) => column.key === 'strict')?.format).toBe('percent');
  });

  it('writes the same text whatever order the trials come in, in a fixed key order', async () => {
    const first = await report();
    const second = await report((list) => [...list].reverse());
    expect(second.text.replaceAll(second.runDir, 'RUN')).toBe(first.text.replaceAll(first.runDir, 'RUN'));
    expect(Object.keys(first.summary)).toEqual([
      'experiment',
      'runDir',
      'trials',
      'conditions',
      'experimentScores',
      'wallMs',
      'durationMs',
    ]);
    expect(Object.keys(first.summary.conditions[0]!)).toEqual([
      'condition',
      'trials',
      'tasks',
      'steps',
      'scored',
      'errored',
      'errorClasses',
      'cancelled',
      'solveRates',
      'toolFailures',
      'tampered',
      'costUsd',
      'durationMs',
      'wallMs',
      'scores',
      'skipped',
    ]);
  });

  it('writes atomically, leaving no temp file beside summary.json', async () => {
    const { runDir } = await report();
    expect(await readdir(runDir)).toEqual(['summary.json']);
  });

  it("prints solve rates, cost and time per condition, pass@k with its interval (n=1 instead of one over a single task), and the run's times labelled", async () => {
    const { printed, runDir } = await report();
    expect(printed).toEqual([
      [
        'condition  trials  steps  scored  errored  cancelled  strict     iso    core   cost  trial time    wall',
        'agent           2      6       4        2          0   50.0%   75.0%   75.0%  $2.00      2m 00s  1m 30s',
        'oracle          1      3       3        0          0  100.0%  100.0%  100.0%  $0.00      1m 00s  1m 00s',
        "strict: share of scored steps whose every test passes, earlier steps' included (tests.strict)",
        "iso: share of scored steps whose own tests all pass, earlier steps' left out (tests.iso)",
        'core: share of scored steps whose core tests (what the spec states or shows) pass (tests.core)',
        'scored / errored / cancelled: steps scored / lost to a fault / stopped; rates and means are over scored steps',
        "not scored, so left out of the rates and means (each step's scores.json says what failed):",
        '  agent: 2 of 6 steps: 2 error:crash (the agent process died or threw)',
        '',
        'condition                pass@1',
        'agent      50.0% [23.7%, 76.3%]',
        'oracle               100.0% n=1',
        '(pass@k with Wilson 95% intervals; n=1 where one task stands behind it)',
        '',
        "wall time 2m 00s; trial time 3m 00s (the trials' durations summed)",
        `summary: ${join(runDir, 'summary.json')}`,
      ].join('\n'),
    ]);
  });

  it('prints no pass@k table when no pass-at-k scorer ran, and a dash for a wall time it cannot know', async () => {
    const runDir = await testFolder('longhaul-summary-');
    const printed: string[] = [];
    const undated = trials().map(({ spec, record }) => ({
      spec,
      record: { ...record, startedAt: undefined },
    }));
    await new SummaryReporter(plugin.options.parse({})).finish({
      runDir,
      experiment: { name: 'quickstart', file: '/experiments/quickstart.yaml' },
      trials: undated,
      experimentScores: [],
      print: (text) => printed.push(text),
    });
    expect(printed[0]).not.toContain('pass@');
    expect(printed[0]!.split('\n')[1]).toMatch(/2m 00s\s+–$/);
    expect(printed[0]).toContain('wall time –; trial time 3m 00s');
  });

  it('gives the wall time of the trials that ran when the rest never started (a run stopped with Ctrl-C)', () => {
    const at = (startedAt: string | undefined, durationMs: number) =>
      ({ startedAt, durationMs }) as Parameters<typeof wallTime>[0][number];
    expect(
      wallTime([
        at('2026-01-01T12:00:00.000Z', 60_000),
        at('2026-01-01T12:00:30.000Z', 60_000),
        at(undefined, 0),
      ]),
    ).toBe(90_000);
    expect(wallTime([at(undefined, 0)])).toBeNull();
  });

  it('reads solve rates from another scorer label, and can stay quiet', async () => {
    const { summary, printed } = await report(undefined, { solveScorer: 'tests#2', table: false });
    // No scorer of the experiment is labelled tests#2: its rates were not measured.
    expect(summary.conditions[1]!.solveRates).toEqual({ strict: null, iso: null, core: null });
    expect(printed).toEqual([]);
  });

  it('prints a dash, not 0.0%, for solve rates of an experiment without the solve scorer', async () => {
    const { printed } = await report(undefined, { solveScorer: 'faithfulness', columns: [] });
    const lines = printed[0]!.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'condition  trials  steps  scored  errored  cancelled  strict  iso  core   cost  trial time    wall',
      'agent           2      6       4        2          0       –    –     –  $2.00      2m 00s  1m 30s',
      'oracle          1      3       3        0          0       –    –     –  $0.00      1m 00s  1m 00s',
    ]);
    expect(lines[3]).toMatch(/^strict: .*\(faithfulness\.strict\)$/);
    expect(lines).toContain('–: nothing measured, so no value (not 0)');
  });

  it('shows a condition whose trials all errored as 0 scored and its errors, not as 0.0%', async () => {
    const runDir = await testFolder('longhaul-summary-');
    const printed: string[] = [];
    const [, crashed] = trials();
    const record = {
      ...crashed!.record,
      status: 'error:model' as const,
      steps: [
        { ...crashed!.record.steps[1]!, index: 0, id: 'csv', status: 'error:model' as const, scores: {} },
      ],
    };
    await new SummaryReporter(plugin.options.parse({})).finish({
      runDir,
      experiment: { name: 'quickstart', file: '/experiments/quickstart.yaml' },
      trials: [{ spec: crashed!.spec, record }],
      experimentScores: [],
      print: (text) => printed.push(text),
    });
    const summary = JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.conditions[0]).toMatchObject({
      steps: 3,
      scored: 0,
      errored: 3,
      errorClasses: { model: 3 },
      cancelled: 0,
      solveRates: { strict: null, iso: null, core: null },
    });
    expect(printed[0]!.split('\n').slice(0, 2)).toEqual([
      'condition  trials  steps  scored  errored  cancelled  strict  iso  core   cost  trial time    wall',
      'agent           1      3       0        3          0       –    –     –  $0.50      1m 00s  1m 00s',
    ]);
  });

  it('formats durations for people', () => {
    expect(formatDuration(12_345)).toBe('12.3s');
    expect(formatDuration(125_000)).toBe('2m 05s');
    expect(formatDuration(3_725_000)).toBe('1h 02m 05s');
  });
});
