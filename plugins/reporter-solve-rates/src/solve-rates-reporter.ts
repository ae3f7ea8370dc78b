import { isAbsolute, join } from 'node:path';
import { type ReportContext, type Reporter, writeFileAtomic } from '@longhaul/core';
import type { Row } from './format.js';
import type { ReporterOptions } from './options.js';
import { phaseTable, table1, trajectoryTable } from './tables.js';

/** Prints SlopCodeBench's Table 1, the progress phases and trajectory shares per condition. */
export class SolveRatesReporter implements Reporter {
  constructor(private readonly options: ReporterOptions) {}

  async finish(ctx: ReportContext): Promise<void> {
    const rows = new Map<string, Row>();
    for (const score of ctx.experimentScores) {
      if (score.scorer !== this.options.scorer || score.condition === undefined) continue;
      const row = rows.get(score.condition) ?? {};
      row[score.metric] = score.value;
      rows.set(score.condition, row);
    }
    if (rows.size === 0) {
      ctx.print(
        `solve-rates: no scores from scorer '${this.options.scorer}'; add it to the experiment's scorers (scorers: [tests, quality, solve-rates])`,
      );
      return;
    }
    const sorted = new Map([...rows].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    const file = isAbsolute(this.options.file) ? this.options.file : join(ctx.runDir, this.options.file);
    await writeFileAtomic(file, `${JSON.stringify(Object.fromEntries(sorted), null, 2)}\n`);
    const over = [...sorted.values()].every((row) => row['denominator.produced'] === true)
      ? 'produced checkpoints'
      : [...sorted.values()].every((row) => row['denominator.produced'] === false)
        ? 'all planned checkpoints'
        : 'checkpoints (denominator differs between conditions)';
    ctx.print(
      [
        `Solve rates (%) over ${over}; cost, minutes, erosion and verbosity per produced checkpoint (mean±std)`,
        table1(sorted),
        '',
        'Progress phases',
        phaseTable(sorted),
        '',
        'Trajectories',
        trajectoryTable(sorted),
        '',
        `solve rates: ${file}`,
      ].join('\n'),
    );
  }
}
