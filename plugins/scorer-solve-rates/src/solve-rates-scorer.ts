import type { ConditionScore, ExperimentScoreContext, Scorer } from '@longhaul/core';
import type { SolveRatesOptions } from './options.js';
import { conditionScores } from './table.js';

export const version = '1';

/** Experiment scorer `solve-rates`: SlopCodeBench's Table 1 columns and progress phases per condition. */
export class SolveRatesScorer implements Extract<Scorer, { scope: 'experiment' }> {
  readonly scope = 'experiment';
  readonly version = version;

  constructor(private readonly options: SolveRatesOptions) {}

  async score(ctx: ExperimentScoreContext): Promise<ConditionScore[]> {
    const conditions = [...new Set(ctx.trials.map(({ spec }) => spec.condition.key))].sort();
    return conditions.flatMap((condition) =>
      conditionScores(
        condition,
        ctx.trials.filter(({ spec }) => spec.condition.key === condition),
        this.options,
      ),
    );
  }
}
