import {
  type Component,
  errorMessage,
  type ModelGateway,
  type Score,
  type Scorer,
  type StepScoreContext,
} from '@longhaul/core';
import { analyzeDir, entryFilesOf } from './dir-analysis.js';
import { dir, fullyFaithful, if50, mcf, severeFailures } from './formulas.js';
import { gatewayModel } from './gateway-model.js';
import { judgeComponent, type Verdict } from './judge.js';
import type { FaithfulnessOptions } from './options.js';
import { RepoView } from './repo-view.js';

export interface JudgeFailure {
  component: string;
  error: string;
}

/** Runs `work` over `items` with at most `limit` at once, keeping the input order. */
async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  });
  await Promise.all(lanes);
  return results;
}

/**
 * SLUMP's component-faithfulness judge: every component of the task is scored 0–4 by an LLM
 * that sees only its description and the final repository through a few read-only tool calls;
 * DIR comes from a static analysis of the same repository.
 */
export class FaithfulnessScorer implements Extract<Scorer, { scope: 'step' }> {
  readonly scope = 'step';
  readonly version = '1';

  constructor(
    private readonly options: FaithfulnessOptions,
    private readonly gateway: () => ModelGateway | undefined,
  ) {}

  async score(ctx: StepScoreContext): Promise<Score[]> {
    const components = ctx.task.components ?? [];
    if (components.length === 0) return [];
    if (this.options.steps === 'last' && ctx.step.index !== ctx.task.steps.length - 1) return [];
    // The snapshot itself is the read-only view: nothing the judge does can change it.
    const include = RepoView.shows(this.options.exclude);
    const repo = new RepoView(await ctx.snapshots.get(ctx.snapshot, { include }), this.options.exclude);
    const model = await gatewayModel(this.gateway(), ctx.trial.id, this.options.model, 'scorer faithfulness');
    const failures: JudgeFailure[] = [];
    const verdicts = (
      await mapLimited(components, this.options.concurrency, (component) =>
        this.judge(model, component, repo, ctx.signal).catch((error: unknown) => {
          failures.push({ component: component.id, error: errorMessage(error) });
          return undefined;
        }),
      )
    ).filter((verdict): verdict is Verdict => verdict !== undefined);
    if (verdicts.length === 0 && failures.length > 0)
      throw new Error(
        `scorer faithfulness: the judge failed on every component; first: ${failures[0]!.error}`,
      );
    const scores = verdicts.map((verdict) => verdict.score);
    const integration = analyzeDir(repo, entryFilesOf(ctx.task.entrypoint));
    const mcfValue = mcf(scores);
    const dirValue = dir(integration.reused, integration.exported);
    return [
      { metric: 'mcf', value: mcfValue, detail: { verdicts } },
      { metric: 'dir', value: dirValue, detail: integration },
      { metric: 'if50', value: if50(mcfValue, dirValue) },
      { metric: 'fully_faithful', value: fullyFaithful(scores) },
      { metric: 'severe', value: severeFailures(scores, this.options.severeThreshold) },
      { metric: 'components', value: components.length },
      { metric: 'judged', value: verdicts.length, detail: failures.length ? { failures } : undefined },
    ];
  }

  private judge(
    model: Awaited<ReturnType<typeof gatewayModel>>,
    component: Component,
    repo: RepoView,
    signal: AbortSignal,
  ) {
    return judgeComponent(model, component, repo, {
      maxToolCalls: this.options.maxToolCalls,
      signal,
      temperature: this.options.temperature,
    });
  }
}
