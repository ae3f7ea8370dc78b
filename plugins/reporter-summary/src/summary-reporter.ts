import { isAbsolute, join } from 'node:path';
import { type Figure, noValue, type ReportContext, type Reporter, writeFileAtomic } from '@longhaul/core';
import { differingTasksNote } from './condition-tasks.js';
import { leftOutOfRates, tableLegend } from './legend.js';
import type { SummaryOptions } from './options.js';
import { columnNotes, scoreColumns, scoreOrder, skippedNotes } from './score-columns.js';
import { type RunSummary, summarizeRun } from './summary.js';
import { conditionTable, flagColumns, formatPassAtK, formatTable, formatTimes } from './table.js';

/** Writes summary.json (per trial, per step and per condition) and prints the solve-rate table. */
export class SummaryReporter implements Reporter {
  constructor(private readonly options: SummaryOptions) {}

  private summarize(ctx: ReportContext): RunSummary {
    return summarizeRun(
      ctx.experiment,
      ctx.runDir,
      ctx.trials,
      ctx.experimentScores,
      this.options.solveScorer,
    );
  }

  private columns(summary: RunSummary, ctx: ReportContext) {
    return scoreColumns(
      summary.conditions,
      this.options.solveScorer,
      this.options.columns,
      scoreOrder(ctx.trials),
    );
  }

  async finish(ctx: ReportContext): Promise<void> {
    const summary = this.summarize(ctx);
    const file = isAbsolute(this.options.file) ? this.options.file : join(ctx.runDir, this.options.file);
    await writeFileAtomic(file, `${JSON.stringify(summary, null, 2)}\n`);
    if (this.options.table && summary.conditions.length > 0) {
      const columns = this.columns(summary, ctx);
      const table = formatTable(summary.conditions, columns.shown, ctx.width);
      const legend = tableLegend({
        solveScorer: this.options.solveScorer,
        scores: columns.shown,
        dashes: table.split('\n').some((line) => line.includes(noValue)),
        flags: flagColumns(summary.conditions).map((flag) => flag.label),
      });
      const leftOut = leftOutOfRates(summary.conditions);
      const notes = [
        ...(leftOut ? [leftOut] : []),
        ...skippedNotes(summary.conditions, columns.shown),
        ...columnNotes(columns),
      ];
      const passAtK = formatPassAtK(summary.experimentScores);
      const differing = differingTasksNote(summary.conditions);
      const tables = [
        [table, legend, ...notes].join('\n'),
        ...(differing ? [differing] : []),
        ...(passAtK ? [passAtK] : []),
      ].join('\n\n');
      ctx.print(`${tables}\n\n${formatTimes(summary)}\nsummary: ${file}`);
    }
  }

  figures(ctx: ReportContext): Figure[] {
    const summary = this.summarize(ctx);
    if (summary.conditions.length === 0) return [];
    const { shown } = this.columns(summary, ctx);
    const note = tableLegend({
      solveScorer: this.options.solveScorer,
      scores: shown,
      dashes: true,
      flags: flagColumns(summary.conditions).map((flag) => flag.label),
    });
    const leftOut = leftOutOfRates(summary.conditions);
    return [{ ...conditionTable(summary.conditions, shown), note: leftOut ? `${note}\n${leftOut}` : note }];
  }
}
