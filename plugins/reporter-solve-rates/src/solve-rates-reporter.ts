import { isAbsolute, join } from 'node:path';
import {
  countOutcomes,
  type Figure,
  formatTable,
  leftOutNote,
  outcomeLegend,
  type ReportContext,
  type Reporter,
  type TextGrid,
  textTable,
  trialStepOutcomes,
  writeFileAtomic,
} from '@longhaul/core';
import type { Row } from './format.js';
import type { ReporterOptions } from './options.js';
import { phases, phaseTable, table1, trajectoryTable } from './tables.js';

/** The report section this reporter's figures go to. */
const section = 'SlopCodeBench';

/** Prints SlopCodeBench's Table 1, the progress phases and trajectory shares per condition. */
export class SolveRatesReporter implements Reporter {
  constructor(private readonly options: ReporterOptions) {}

  /** The scorer's values per condition, in condition order. */
  private scored(ctx: ReportContext): Map<string, Row> {
    const rows = new Map<string, Row>();
    for (const score of ctx.experimentScores) {
      if (score.scorer !== this.options.scorer || score.condition === undefined) continue;
      const row = rows.get(score.condition) ?? {};
      row[score.metric] = score.value;
      rows.set(score.condition, row);
    }
    return rows;
  }

  /** Every condition of the run, in order; one the scorer gave nothing for is undefined (missing). */
  private rows(ctx: ReportContext): Map<string, Row | undefined> {
    const scored = this.scored(ctx);
    const conditions = new Set([...scored.keys(), ...ctx.trials.map(({ spec }) => spec.condition.key)]);
    return new Map(
      [...conditions]
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .map((condition) => [condition, scored.get(condition)]),
    );
  }

  private tables(sorted: Map<string, Row | undefined>): { id: string; title: string; grid: TextGrid }[] {
    const present = [...sorted.values()].filter((row) => row !== undefined);
    const over = present.every((row) => row['denominator.produced'] === true)
      ? 'produced checkpoints'
      : present.every((row) => row['denominator.produced'] === false)
        ? 'all scored checkpoints'
        : 'checkpoints (denominator differs between conditions)';
    return [
      {
        id: 'table1',
        title: `Solve rates (%) over ${over}; cost, minutes, erosion and verbosity per produced checkpoint (mean±std)`,
        grid: table1(sorted),
      },
      { id: 'phases', title: 'Progress phases', grid: phaseTable(sorted) },
      { id: 'trajectories', title: 'Trajectories', grid: trajectoryTable(sorted) },
    ];
  }

  /**
   * The legend, and what the rates leave out of the checkpoints planned, per condition: the
   * errored ones by fault class (from the trials' records), the cancelled ones and, over produced
   * checkpoints, those the agent never reached.
   */
  private note(ctx: ReportContext, sorted: Map<string, Row | undefined>): string {
    const rows = [...sorted].flatMap(([condition, row]) => {
      if (row === undefined) return [];
      const number = (key: string) => (typeof row[key] === 'number' ? (row[key] as number) : 0);
      const outcomes = ctx.trials
        .filter(({ spec }) => spec.condition.key === condition && spec.task !== undefined)
        .flatMap(({ spec, record }) => trialStepOutcomes(spec.task.steps, record));
      const counts = {
        ...countOutcomes(outcomes),
        errored: number('checkpoints.errored'),
        cancelled: number('checkpoints.cancelled'),
      };
      const unreached =
        row['denominator.produced'] === true
          ? number('checkpoints.scored') - number('checkpoints.produced')
          : 0;
      return [{ condition, steps: number('checkpoints.all'), counts, unreached }];
    });
    const leftOut = leftOutNote(rows);
    return leftOut ? `${outcomeLegend}\n${leftOut}` : outcomeLegend;
  }

  async finish(ctx: ReportContext): Promise<void> {
    if (this.scored(ctx).size === 0) {
      ctx.print(
        `solve-rates: no scores from scorer '${this.options.scorer}'; add it to the experiment's scorers (scorers: [tests, quality, solve-rates])`,
      );
      return;
    }
    const file = isAbsolute(this.options.file) ? this.options.file : join(ctx.runDir, this.options.file);
    const sorted = this.rows(ctx);
    await writeFileAtomic(file, `${JSON.stringify(Object.fromEntries(this.scored(ctx)), null, 2)}\n`);
    ctx.print(
      [
        ...this.tables(sorted).flatMap(({ title, grid }) => [
          title,
          formatTable(grid.header, grid.cells),
          '',
        ]),
        this.note(ctx, sorted),
        `solve rates: ${file}`,
      ].join('\n'),
    );
  }

  figures(ctx: ReportContext): Figure[] {
    if (this.scored(ctx).size === 0) return [];
    const sorted = this.rows(ctx);
    // Table 1 is the paper's headline: the report opens with it.
    const note = this.note(ctx, sorted);
    const figures: Figure[] = this.tables(sorted).map(({ id, title, grid }) => ({
      ...textTable(id, title, grid.header, grid.cells),
      note,
      lead: id === 'table1',
      section,
    }));
    // The paper's curves over checkpoint progress: solve rate, then how the code erodes and bloats.
    const curves = [
      { metric: 'strict', title: 'Strict solve rate (%) per progress phase', axis: 'strict %', scale: 100 },
      {
        metric: 'erosion',
        title: 'Erosion per progress phase (mean over produced checkpoints)',
        axis: 'erosion',
        scale: 1,
      },
      {
        metric: 'verbosity',
        title: 'Verbosity per progress phase (mean over produced checkpoints)',
        axis: 'verbosity',
        scale: 1,
      },
    ];
    for (const { metric, title, axis, scale } of curves) {
      const data = [...this.scored(ctx)].flatMap(([condition, row]) =>
        phases
          .filter((phase) => typeof row[`phase.${phase}.${metric}`] === 'number')
          .map((phase) => ({
            condition,
            phase: `${phases.indexOf(phase) + 1} ${phase}`,
            [metric]: (row[`phase.${phase}.${metric}`] as number) * scale,
          })),
      );
      if (data.length === 0) continue;
      figures.push({
        kind: 'plot',
        id: `phases.${metric}`,
        title,
        section,
        mark: 'line',
        data,
        x: { field: 'phase', title: 'phase', type: 'ordinal' },
        y: { field: metric, title: axis },
        color: { field: 'condition' },
      });
    }
    return figures;
  }
}
