import type { Score, Scorer, TrialScoreContext } from '@longhaul/core';
import type { TaskOptions } from './options.js';

/**
 * Trial scorer `swe-steps-task`: a task succeeds when every PR of its chain succeeds (a PR with no
 * score, e.g. skipped after a fault, fails it).
 */
export class SweStepsTaskScorer implements Extract<Scorer, { scope: 'trial' }> {
  readonly scope = 'trial';
  readonly version = '1';

  constructor(private readonly options: TaskOptions) {}

  async score(ctx: TrialScoreContext): Promise<Score[]> {
    const key = `${this.options.scorer}.success`;
    const passed = ctx.record.steps.filter((step) => step.scores[key] === 1).length;
    const prs = ctx.trial.task.steps.length;
    return [
      { metric: 'success', value: prs > 0 && passed === prs ? 1 : 0 },
      { metric: 'prs_passed', value: passed },
      { metric: 'prs', value: prs },
    ];
  }
}
