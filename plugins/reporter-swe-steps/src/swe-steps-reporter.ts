import { isAbsolute, join } from 'node:path';
import {
  type Figure,
  formatTable,
  outcomeLegend,
  type ReportContext,
  type Reporter,
  type TextGrid,
  textTable,
  writeFileAtomic,
} from '@longhaul/core';
import type { ReporterOptions } from './options.js';
import { type ConditionRow, rowsOf } from './rows.js';
import {
  anyNotJudged,
  binTable,
  healthTable,
  inflationTable,
  notJudgedLegend,
  successTable,
  testsTable,
} from './tables.js';

/** The legend under the tables: the outcomes, and what PRs not judged are when there are some. */
const legendOf = (rows: ConditionRow[]) =>
  anyNotJudged(rows) ? `${outcomeLegend}\n${notJudgedLegend}` : outcomeLegend;

/** The report section this reporter's figures go to. */
const section = 'SWE-STEPS';

/** Prints SWE-STEPS's tables per condition from the experiment scorer `swe-steps-rates`. */
export class SweStepsReporter implements Reporter {
  constructor(private readonly options: ReporterOptions) {}

  private tables(rows: ConditionRow[]): { id: string; title: string; grid: TextGrid }[] {
    const sections: [string, string, TextGrid | undefined][] = [
      [
        'success',
        'SWE-STEPS: PRs passed, tasks completed (per repository: PRs,tasks), PR success % and $ per task',
        successTable(rows),
      ],
      ['tests', 'P2P % / F2P % per repository; averages pooled over tests', testsTable(rows)],
      [
        'inflation',
        'Inflation of the individual setting: PR success points over the same agent in global and PRD',
        inflationTable(rows),
      ],
      [
        'chain-length',
        'PR success % (passed/PRs) by chain length (PRs in the task)',
        binTable(rows, 'chainLength'),
      ],
      [
        'suite-size',
        'PR success % (passed/PRs) by active suite size (tests that judged the PR)',
        binTable(rows, 'suiteSize'),
      ],
      [
        'health.cognitive',
        'Repository health: Δ cognitive complexity from the base commit per progress bin',
        healthTable(rows, 'cognitive'),
      ],
      [
        'health.debt',
        'Repository health: Δ technical debt (minutes) from the base commit per progress bin',
        healthTable(rows, 'debt'),
      ],
    ];
    return sections
      .filter(([, , grid]) => grid !== undefined)
      .map(([id, title, grid]) => ({ id, title, grid: grid! }));
  }

  async finish(ctx: ReportContext): Promise<void> {
    const rows = rowsOf(ctx.experimentScores, this.options.scorer);
    if (rows.length === 0) {
      ctx.print(
        `swe-steps: no scores from scorer '${this.options.scorer}'; add it to the experiment's scorers (scorers: [swe-steps, swe-steps-task, swe-steps-rates])`,
      );
      return;
    }
    const file = isAbsolute(this.options.file) ? this.options.file : join(ctx.runDir, this.options.file);
    await writeFileAtomic(file, `${JSON.stringify(rows, null, 2)}\n`);
    ctx.print(
      [
        ...this.tables(rows).flatMap(({ title, grid }) => [title, formatTable(grid.header, grid.cells), '']),
        legendOf(rows),
        `swe-steps: ${file}`,
      ].join('\n'),
    );
  }

  figures(ctx: ReportContext): Figure[] {
    const rows = rowsOf(ctx.experimentScores, this.options.scorer);
    // PRs passed and tasks completed are the paper's headline: the report opens with them.
    const figures: Figure[] = this.tables(rows).map(({ id, title, grid }) => ({
      ...textTable(id, title, grid.header, grid.cells),
      lead: id === 'success',
      note: legendOf(rows),
      section,
    }));
    for (const measure of ['cognitive', 'debt'] as const) {
      const data = rows.flatMap((row) =>
        row.health
          ? (['agent', 'gold'] as const).flatMap((series) =>
              row.health![measure][series].map((value, bin) => ({
                series: `${row.condition} ${series === 'gold' ? 'gold trace' : 'agent'}`,
                bin: bin + 1,
                delta: value,
              })),
            )
          : [],
      );
      if (data.length === 0) continue;
      figures.push({
        kind: 'plot',
        id: `health.${measure}.plot`,
        title: `Δ ${measure === 'cognitive' ? 'cognitive complexity' : 'technical debt (minutes)'} vs the gold trace per progress bin`,
        section,
        mark: 'line',
        data,
        x: { field: 'bin', title: 'progress bin', type: 'ordinal' },
        y: { field: 'delta', title: 'Δ from base' },
        color: { field: 'series' },
      });
    }
    return figures;
  }
}
