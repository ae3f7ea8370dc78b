import type { Score, Scorer, StepScoreContext, WorkspaceFile } from '@longhaul/core';
import { readDirectoryFiles } from '@longhaul/core';
import { analyzeProject, type DiscoveryOptions, selectSources, sourceCandidates } from '@longhaul/metrics';
import type { HealthOptions } from './options.js';

export interface Health {
  cognitive: number;
  debt: number;
}

const decoder = new TextDecoder();

/** Cognitive complexity and technical-debt minutes of a workspace's sources. */
export async function healthOf(
  files: readonly WorkspaceFile[],
  discovery: DiscoveryOptions,
): Promise<Health> {
  const sources = selectSources(
    files.map((file) => ({ path: file.path, text: () => decoder.decode(file.data) })),
    discovery,
  );
  const { summary } = await analyzeProject(sources);
  return { cognitive: summary.cognitive_complexity, debt: summary.technical_debt_minutes };
}

/**
 * Step scorer `swe-steps-health`: repository health after each PR (the paper's RQ3) for the
 * agent's workspace and for the gold trace (the PR's reference tree), with Δ from the base commit
 * (the task's seed). The binning over a chain is `swe-steps-rates`'s. Host trees are measured once
 * per process: the gold trace is the same for every trial of a task.
 */
export class SweStepsHealthScorer implements Extract<Scorer, { scope: 'step' }> {
  readonly scope = 'step';
  readonly version = '1';
  private readonly trees = new Map<string, Promise<Health>>();

  constructor(private readonly options: HealthOptions) {}

  private tree(dir: string | undefined): Promise<Health> | undefined {
    if (!dir) return undefined;
    let health = this.trees.get(dir);
    if (!health) {
      health = readDirectoryFiles(dir).then((files) => healthOf(files, { exclude: this.options.exclude }));
      this.trees.set(dir, health);
    }
    return health;
  }

  async score(ctx: StepScoreContext): Promise<Score[]> {
    const discovery = { exclude: this.options.exclude };
    // Only what may be a source is read from the snapshot.
    const files = await ctx.snapshots.get(ctx.snapshot, { include: sourceCandidates(discovery) });
    const agent = await healthOf(files, discovery);
    const base = (await this.tree(ctx.task.seed)) ?? { cognitive: 0, debt: 0 };
    const gold = await this.tree(ctx.step.solution);
    return [
      { metric: 'cognitive', value: agent.cognitive },
      { metric: 'debt_minutes', value: agent.debt },
      { metric: 'delta_cognitive', value: agent.cognitive - base.cognitive },
      { metric: 'delta_debt_minutes', value: agent.debt - base.debt },
      { metric: 'gold_cognitive', value: gold?.cognitive ?? null },
      { metric: 'gold_debt_minutes', value: gold?.debt ?? null },
      { metric: 'gold_delta_cognitive', value: gold ? gold.cognitive - base.cognitive : null },
      { metric: 'gold_delta_debt_minutes', value: gold ? gold.debt - base.debt : null },
    ];
  }
}
