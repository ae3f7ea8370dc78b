import {
  type Figure,
  formatTableWithin,
  missingCell,
  noValue,
  outcomeLegend,
  type ReportContext,
  type Reporter,
  type TextGrid,
  textTable,
} from '@longhaul/core';
import { z } from 'zod';
import { exposureAudit } from './exposure.js';
import { slumpLegend } from './slump-legend.js';

export const slumpReporterOptions = z
  .object({
    scorer: z
      .string()
      .default('slump')
      .describe("Label of the experiment scorer 'slump' whose scores are shown"),
    metrics: z
      .array(z.string())
      .default(['mcf', 'dir', 'if50'])
      .describe('Metrics shown with their value, loss and gap recovery'),
  })
  .strict();
export type SlumpReporterOptions = z.output<typeof slumpReporterOptions>;

function format(value: number | boolean | null | undefined, percent = false): string {
  if (typeof value !== 'number') return noValue;
  return percent ? `${Math.round(value * 100)}%` : value.toFixed(3);
}

const title = 'SLUMP (loss = single-shot − condition; rec = gap recovery; W/T/L against emergent)';

/** Prints SLUMP per condition: each metric, its loss against the control and the gap recovery. */
export class SlumpReporter implements Reporter {
  constructor(private readonly options: SlumpReporterOptions) {}

  private grid(ctx: ReportContext): TextGrid | undefined {
    const scores = ctx.experimentScores.filter((score) => score.scorer === this.options.scorer);
    if (scores.length === 0) return undefined;
    const scoredConditions = new Set(scores.map((score) => score.condition ?? ''));
    const conditions = [
      ...new Set([...scoredConditions, ...ctx.trials.map(({ spec }) => spec.condition.key)]),
    ].sort();
    const value = (condition: string, metric: string) =>
      scores.find((score) => (score.condition ?? '') === condition && score.metric === metric)?.value;
    const header = ['condition', 'scored', 'errored', 'cancelled'];
    for (const metric of this.options.metrics) header.push(metric, `loss ${metric}`, `rec ${metric}`);
    const main = this.options.metrics.at(-1)!;
    header.push(`W/T/L ${main}`);
    const count = (condition: string, outcome: string) => {
      const n = value(condition, `trials.${outcome}`);
      return typeof n === 'number' ? String(n) : noValue;
    };
    const cells = conditions.map((condition) => {
      if (!scoredConditions.has(condition)) return [condition, ...Array(header.length - 1).fill(missingCell)];
      const row = [
        condition,
        count(condition, 'scored'),
        count(condition, 'errored'),
        count(condition, 'cancelled'),
      ];
      for (const metric of this.options.metrics)
        row.push(
          format(value(condition, metric)),
          format(value(condition, `loss.${metric}`)),
          format(value(condition, `recovery.${metric}`), true),
        );
      const wins = value(condition, `wins.${main}`);
      row.push(
        typeof wins === 'number'
          ? `${wins}/${value(condition, `ties.${main}`)}/${value(condition, `losses.${main}`)}`
          : noValue,
      );
      return row;
    });
    return { header, cells };
  }

  async finish(ctx: ReportContext): Promise<void> {
    const grid = this.grid(ctx);
    if (grid)
      ctx.print(
        ['', title, formatTableWithin(grid.header, grid.cells, ctx.width), this.legend(), outcomeLegend].join(
          '\n',
        ),
      );
  }

  private legend(): string {
    return slumpLegend(this.options.metrics);
  }

  figures(ctx: ReportContext): Figure[] {
    const grid = this.grid(ctx);
    if (!grid) return [];
    // SLUMP's table is its headline: the report opens with it.
    const figures: Figure[] = [
      {
        ...textTable('table', title, grid.header, grid.cells),
        lead: true,
        section: 'SLUMP',
        note: `${this.legend()}\n${outcomeLegend}`,
      },
    ];
    const exposure = exposureCurves(ctx);
    if (exposure) figures.push(exposure);
    return figures;
  }
}

/**
 * SLUMP's Figure 1 for the run's emergent-spec scripts: per turn, the cumulative share of
 * components a request has made recoverable and explicit. A task shows only if it has components.
 */
function exposureCurves(ctx: ReportContext): Figure | undefined {
  const tasks = new Map(ctx.trials.map(({ spec }) => [spec.task.id, spec.task]));
  const data = [...tasks.values()]
    .filter((task) => (task.components?.length ?? 0) > 0 && task.steps.length > 1)
    .flatMap((task) =>
      exposureAudit(task).curve.flatMap((point) => [
        { turn: point.turn, share: point.recoverable * 100, series: `${task.id} recoverable` },
        { turn: point.turn, share: point.explicit * 100, series: `${task.id} explicit` },
      ]),
    );
  if (data.length === 0) return undefined;
  return {
    kind: 'plot',
    id: 'exposure',
    title: 'Exposure: components recoverable (level ≥ 1) and explicit (level 4) so far, per turn (%)',
    section: 'SLUMP',
    mark: 'line',
    data,
    x: { field: 'turn', title: 'turn', type: 'quantitative' },
    y: { field: 'share', title: 'components %' },
    color: { field: 'series' },
  };
}
