import { isAbsolute, join } from 'node:path';
import { type Figure, type ReportContext, type Reporter, writeFileAtomic } from '@longhaul/core';
import { differingTasksNote } from './condition-tasks.js';
import type { SummaryOptions } from './options.js';
import { summarizeRun } from './summary.js';
import { conditionTable, formatPassAtK, formatTable, formatTimes } from './table.js';

/** Writes summary.json (per trial, per step and per condition) and prints the solve-rate table. */
export class SummaryReporter implements Reporter {
  constructor(private readonly options: SummaryOptions) {}

  async finish(ctx: ReportContext): Promise<void> {
    const summary = summarizeRun(
      ctx.experiment,
      ctx.runDir,
      ctx.trials,
      ctx.experimentScores,
      this.options.solveScorer,
    );
    const file = isAbsolute(this.options.file) ? this.options.file : join(ctx.runDir, this.options.file);
    await writeFileAtomic(file, `${JSON.stringify(summary, null, 2)}\n`);
    if (this.options.table && summary.conditions.length > 0) {
      const passAtK = formatPassAtK(summary.experimentScores);
      const differing = differingTasksNote(summary.conditions);
      const tables = [
        formatTable(summary.conditions),
        ...(differing ? [differing] : []),
        ...(passAtK ? [passAtK] : []),
      ].join('\n\n');
      ctx.print(`${tables}\n\n${formatTimes(summary)}\nsummary: ${file}`);
    }
  }

  figures(ctx: ReportContext): Figure[] {
    const summary = summarizeRun(
      ctx.experiment,
      ctx.runDir,
      ctx.trials,
      ctx.experimentScores,
      this.options.solveScorer,
    );
    return summary.conditions.length > 0 ? [conditionTable(summary.conditions)] : [];
  }
}
