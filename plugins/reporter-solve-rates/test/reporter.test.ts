import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConditionScore, Reporter } from '@longhaul/core';
import { describeReporter, instantiatePlugin } from '@longhaul/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import plugin, { SolveRatesReporter } from '../src/index.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

function scores(condition: string, values: Record<string, number | boolean | null>) {
  return Object.entries(values).map(([metric, value]): ConditionScore & { scorer: string } => ({
    condition,
    metric,
    value,
    scorer: 'solve-rates',
  }));
}

async function report(experimentScores: (ConditionScore & { scorer: string })[], conditions: string[] = []) {
  const runDir = await mkdtemp(join(tmpdir(), 'longhaul-solve-rates-'));
  dirs.push(runDir);
  const printed: string[] = [];
  const reporter = instantiatePlugin<Reporter>(plugin, {});
  const context = {
    runDir,
    experiment: { name: 'x', file: 'x.yaml' },
    trials: conditions.map((key) => ({ spec: { condition: { key } }, record: {} }) as never),
    experimentScores,
    print: (text: string) => printed.push(text),
  };
  await reporter.finish(context);
  return { text: printed.join('\n'), runDir, figures: (await reporter.figures?.(context)) ?? [] };
}

describe('reporter solve-rates', () => {
  it("prints Table 1 with the paper's columns, the phases and the trajectory shares", async () => {
    const { text, runDir, figures } = await report([
      ...scores('oracle/plan-first/none', {
        strict: 0.172,
        iso: 0.215,
        core: 0.538,
        partial: 0.35,
        'cost.mean': 3.47,
        'cost.std': 3.4,
        'cost.net': 322.97,
        'minutes.mean': 14.4,
        'minutes.std': 10.9,
        'erosion.mean': 0.774,
        'erosion.std': 0.132,
        'verbosity.mean': 0.346,
        'verbosity.std': 0.102,
        'denominator.produced': true,
        problems: 20,
        'checkpoints.produced': 93,
        'checkpoints.all': 93,
        full: 0,
        'erosion.rises': 0.8,
        'verbosity.rises': 0.898,
        'phase.Start.checkpoints': 20,
        'phase.Start.strict': 0.5,
        'phase.Start.iso': 0.5,
        'phase.Start.core': 0.9,
        'phase.Start.cost': 1.2,
        'phase.Start.erosion': 0.5,
        'phase.Start.verbosity': 0.3,
        'phase.Late.checkpoints': 0,
      }),
      { scorer: 'tests', metric: 'strict', value: 1, condition: 'ignored' },
    ]);
    expect(text).toContain('Solve rates (%) over produced checkpoints');
    expect(text).toMatch(
      /condition\s+scored\s+errored\s+cancelled\s+Strict\s+Iso\.\s+Core\s+Partial\s+\$\/CKPT\s+Net \$\s+Min\/CKPT\s+Erosion\s+Verbosity/,
    );
    expect(text).toMatch(
      /oracle\/plan-first\/none\s+–\s+–\s+–\s+17\.2\s+21\.5\s+53\.8\s+35\.0\s+3\.47±3\.40\s+322\.97\s+14\.4±10\.9\s+0\.774±0\.132\s+0\.346±0\.102/,
    );
    expect(text).toMatch(
      /oracle\/plan-first\/none\s+Start\s+20\s+–\s+–\s+50\.0\s+50\.0\s+90\.0\s+1\.20\s+0\.500\s+0\.300/,
    );
    expect(text).not.toMatch(/\sLate\s/);
    expect(text).toMatch(/oracle\/plan-first\/none\s+20\s+–\s+93\s+93\s+0\.0\s+80\.0\s+89\.8/);
    expect(text).not.toContain('ignored');
    const json = JSON.parse(await readFile(join(runDir, 'solve-rates.json'), 'utf8'));
    expect(json['oracle/plan-first/none'].strict).toBe(0.172);
    expect(figures.map((figure) => `${figure.kind} ${figure.id}`)).toEqual([
      'table table1',
      'table phases',
      'table trajectories',
      'plot phases.strict',
      'plot phases.erosion',
      'plot phases.verbosity',
    ]);
    // The report gives them a SlopCodeBench section (Table 1 leads the page).
    expect(new Set(figures.map((figure) => figure.section))).toEqual(new Set(['SlopCodeBench']));
    const [table1] = figures;
    if (table1?.kind !== 'table') throw new Error('table1 is not a table');
    expect(Object.values(table1.rows[0]!)).toEqual([
      'oracle/plan-first/none',
      '–',
      '–',
      '–',
      '17.2',
      '21.5',
      '53.8',
      '35.0',
      '3.47±3.40',
      '322.97',
      '14.4±10.9',
      '0.774±0.132',
      '0.346±0.102',
    ]);
    expect(figures[3]).toMatchObject({
      data: [{ condition: 'oracle/plan-first/none', phase: '1 Start', strict: 50 }],
    });
    expect(figures[4]).toMatchObject({
      data: [{ condition: 'oracle/plan-first/none', phase: '1 Start', erosion: 0.5 }],
    });
    expect(figures[5]).toMatchObject({
      data: [{ condition: 'oracle/plan-first/none', phase: '1 Start', verbosity: 0.3 }],
    });
  });

  it('counts scored, errored and cancelled checkpoints beside rates over the scored ones, and shows a condition without scores as missing', async () => {
    const { text, figures } = await report(
      scores('agent', {
        strict: 0.5,
        iso: 0.5,
        core: 1,
        partial: null,
        'denominator.produced': true,
        problems: 2,
        'problems.scored': 0,
        'checkpoints.produced': 2,
        'checkpoints.all': 6,
        'checkpoints.scored': 2,
        'checkpoints.errored': 2,
        'checkpoints.cancelled': 2,
        'phase.Start.checkpoints': 2,
        'phase.Start.strict': 0.5,
        'phase.Start.errored': 0,
        'phase.Start.cancelled': 0,
        'phase.Final.checkpoints': 0,
        'phase.Final.errored': 1,
        'phase.Final.cancelled': 1,
      }),
      ['agent', 'oracle'],
    );
    expect(text).toMatch(/^agent\s+2\s+2\s+2\s+50\.0\s+50\.0\s+100\.0\s+–\s/m);
    expect(text).toMatch(/^oracle\s+missing\s+missing\s+missing\s+missing/m);
    // A phase where every checkpoint was lost still shows, with no rate rather than 0.0.
    expect(text).toMatch(/^agent\s+Final\s+0\s+1\s+1\s+–\s+–\s+–/m);
    expect(text).toMatch(/^agent\s+2\s+0\s+2\s+6\s+–/m);
    expect(text).toContain("'missing': the run has no trial of that condition");
    expect(figures[0]).toMatchObject({
      note: expect.stringContaining('rates and means are over scored steps only'),
    });
    // The rates stand on 2 of the 6 checkpoints: the note says which 4 are left out, and why.
    const leftOut = [
      "not scored, so left out of the rates and means (each step's scores.json says what failed):",
      '  agent: 4 of 6 steps: 2 errored (lost to a fault whose class the run does not hold), 2 cancelled (stopped by the user or the runner)',
    ].join('\n');
    expect(text).toContain(leftOut);
    expect(figures[0]).toMatchObject({ note: expect.stringContaining(leftOut) });
  });

  it('says what to add when the experiment has no solve-rates scorer', async () => {
    const { text, figures } = await report([]);
    expect(figures).toEqual([]);
    expect(text).toMatch(/no scores from scorer 'solve-rates'.*scorers: \[tests, quality, solve-rates\]/);
  });
});

describeReporter('solve-rates', () => new SolveRatesReporter(plugin.options.parse({})));
