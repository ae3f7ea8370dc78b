import type { Score, Scorer, TrialScoreContext } from '@longhaul/core';
import type { TaskOptions } from './options.js';

/**
 * Trial scorer `swe-steps-task`: a task succeeds when every PR of its chain that was judged
 * succeeds (a PR with no score, e.g. skipped after a fault, fails it). A PR whose success is no
 * value had no F2P test to judge it on (PRD, every one superseded): it is counted apart, and a
 * task whose PRs were none judged has no success either.
 */
export class SweStepsTaskScorer implements Extract<Scorer, { scope: 'trial' }> {
  readonly scope = 'trial';
  readonly version = '1';

  constructor(private readonly options: TaskOptions) {}

  async score(ctx: TrialScoreContext): Promise<Score[]> {
    const key = `${this.options.scorer}.success`;
    const passed = ctx.record.steps.filter((step) => step.scores[key] === 1).length;
    const notJudged = ctx.record.steps.filter(
      (step) => key in step.scores && step.scores[key] === null,
    ).length;
    const prs = ctx.trial.task.steps.length;
    const judged = prs - notJudged;
    return [
      { metric: 'success', value: judged === 0 ? null : passed === judged ? 1 : 0 },
      { metric: 'prs_passed', value: passed },
      { metric: 'prs', value: prs },
      { metric: 'prs_not_judged', value: notJudged },
    ];
  }
}
