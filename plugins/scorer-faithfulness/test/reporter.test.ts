import { describe, expect, it } from 'vitest';
import { SlumpReporter, slumpReporterOptions } from '../src/slump-reporter.js';

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
      trials: [],
      experimentScores: [
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
      expect.stringMatching(/^condition\s+if50\s+loss if50\s+rec if50\s+W\/T\/L if50$/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^ide\/conversation\/none\s+0\.414\s+0\.116\s+–\s+–$/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^ide\/conversation\/projectguard\s+0\.500\s+–\s+74%\s+13\/4\/3$/),
    );
    const [table] = reporter.figures(context);
    expect(table?.kind).toBe('table');
    if (table?.kind !== 'table') return;
    expect(table.columns.map((column) => column.label)).toEqual([
      'condition',
      'if50',
      'loss if50',
      'rec if50',
      'W/T/L if50',
    ]);
    expect(table.rows.map((row) => Object.values(row))).toEqual([
      ['ide/conversation/none', '0.414', '0.116', '–', '–'],
      ['ide/conversation/projectguard', '0.500', '–', '74%', '13/4/3'],
    ]);
  });
});
