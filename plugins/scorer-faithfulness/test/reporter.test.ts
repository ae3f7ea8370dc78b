import { sampleTask } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import { SlumpReporter, slumpReporterOptions } from '../src/slump-reporter.js';
import { components } from './fixtures.js';

describe('reporter slump', () => {
  it('prints each condition with its metrics, loss, recovery and W/T/L', async () => {
    const printed: string[] = [];
    const score = (condition: string, metric: string, value: number | null) => ({
      scorer: 'slump',
      condition,
      metric,
      value,
    });
    const reporter = new SlumpReporter(slumpReporterOptions.parse({ metrics: ['if50'] }));
    const context = {
      runDir: '/tmp',
      experiment: { name: 'x', file: 'x.yaml' },
      // single-shot has trials but no slump scores: missing, not zero.
      trials: [{ spec: { condition: { key: 'ide/single-shot/none' }, task: sampleTask(2) } }] as never[],
      experimentScores: [
        score('ide/conversation/none', 'trials.scored', 2),
        score('ide/conversation/none', 'trials.errored', 1),
        score('ide/conversation/none', 'trials.cancelled', 1),
        score('ide/conversation/none', 'if50', 0.414),
        score('ide/conversation/none', 'loss.if50', 0.116),
        score('ide/conversation/projectguard', 'if50', 0.5),
        score('ide/conversation/projectguard', 'recovery.if50', 0.7414),
        score('ide/conversation/projectguard', 'wins.if50', 13),
        score('ide/conversation/projectguard', 'ties.if50', 4),
        score('ide/conversation/projectguard', 'losses.if50', 3),
        { scorer: 'other', condition: 'ide/conversation/none', metric: 'if50', value: 9 },
      ],
      print: (text: string) => printed.push(text),
    };
    await reporter.finish(context);
    const lines = printed.join('\n').split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^condition\s+scored\s+errored\s+cancelled\s+if50\s+loss if50\s+rec if50\s+W\/T\/L if50$/,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^ide\/conversation\/none\s+2\s+1\s+1\s+0\.414\s+0\.116\s+–\s+–$/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^ide\/conversation\/projectguard\s+–\s+–\s+–\s+0\.500\s+–\s+74%\s+13\/4\/3$/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^ide\/single-shot\/none\s+missing\s+missing\s+missing\s+missing\s+missing\s+missing\s+missing$/,
      ),
    );
    expect(printed.join('\n')).toContain('rates and means are over scored steps only');
    // The legend explains the metric shown, and only that one.
    expect(lines).toContain(
      "if50: implementation faithfulness, SLUMP's primary endpoint: 0.5·mcf/4 + 0.5·dir (0–1)",
    );
    expect(lines.some((line) => line.startsWith('mcf:') || line.startsWith('dir:'))).toBe(false);
    expect(lines).toContainEqual(expect.stringMatching(/^rec m: gap recovery, \(condition − emergent\)/));
    const [table, ...others] = reporter.figures(context);
    // A task without components has no exposure to plot.
    expect(others).toEqual([]);
    expect(table?.kind).toBe('table');
    expect(table?.section).toBe('SLUMP');
    if (table?.kind !== 'table') return;
    expect(table.columns.map((column) => column.label)).toEqual([
      'condition',
      'scored',
      'errored',
      'cancelled',
      'if50',
      'loss if50',
      'rec if50',
      'W/T/L if50',
    ]);
    expect(table.note).toMatch(/^if50: implementation faithfulness/);
    expect(table.rows.map((row) => Object.values(row))).toEqual([
      ['ide/conversation/none', '2', '1', '1', '0.414', '0.116', '–', '–'],
      ['ide/conversation/projectguard', '–', '–', '–', '0.500', '–', '74%', '13/4/3'],
      ['ide/single-shot/none', ...Array(7).fill('missing')],
    ]);
  });

  it("plots each emergent script's exposure per turn: components recoverable and explicit so far", () => {
    const task = sampleTask(3, { id: 'limiter', components });
    task.steps[0]!.discloses = [{ component: 'token-bucket', explicitness: 2 }];
    task.steps[2]!.discloses = [
      { component: 'token-bucket', explicitness: 4 },
      { component: 'audit-log', explicitness: 1 },
    ];
    const reporter = new SlumpReporter(slumpReporterOptions.parse({}));
    const figures = reporter.figures({
      runDir: '/tmp',
      experiment: { name: 'x', file: 'x.yaml' },
      trials: ['r1', 'r2'].map((repeat) => ({ spec: { condition: { key: repeat }, task } })) as never[],
      experimentScores: [{ scorer: 'slump', condition: 'r1', metric: 'if50', value: 0.5 }],
      print: () => {},
    });
    const plot = figures.find((figure) => figure.id === 'exposure');
    expect(plot?.kind).toBe('plot');
    if (plot?.kind !== 'plot') return;
    expect(plot.section).toBe('SLUMP');
    const series = (name: string) =>
      plot.data
        .filter((point) => point.series === `limiter ${name}`)
        .map((point) => [point.turn, point.share]);
    expect(series('recoverable')).toEqual([
      [1, 50],
      [2, 50],
      [3, 100],
    ]);
    expect(series('explicit')).toEqual([
      [1, 0],
      [2, 0],
      [3, 50],
    ]);
  });

  it('explains mcf, dir and if50 by default, and leaves a metric it does not know unexplained', async () => {
    const printed: string[] = [];
    const reporter = new SlumpReporter(
      slumpReporterOptions.parse({ metrics: ['mcf', 'dir', 'if50', 'mine'] }),
    );
    await reporter.finish({
      runDir: '/tmp',
      experiment: { name: 'x', file: 'x.yaml' },
      trials: [],
      experimentScores: [{ scorer: 'slump', condition: 'a', metric: 'mcf', value: 3 }],
      print: (text: string) => printed.push(text),
    });
    const lines = printed.join('\n').split('\n');
    expect(
      lines.filter((line) => /^(mcf|dir|if50|mine):/.test(line)).map((line) => line.split(':')[0]),
    ).toEqual(['mcf', 'dir', 'if50']);
    expect(lines).toContain(
      "mcf: mean component faithfulness: the judge's 0–4 rubric score averaged over the task's components",
    );
  });
});
