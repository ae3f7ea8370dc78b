import type { Chain, ExclusionReason } from './dataset.js';

/** A first-parent commit in the window, in merge order, as chain building sees it. */
export interface ChainInput {
  commit: string;
  parent: string;
  /** The PR number, when the commit merged a PR. */
  pr?: number;
  /** Validated PRs can be steps. */
  validated: boolean;
  /** Why a PR was excluded (absent for validated PRs and for commits that are not PRs). */
  reason?: ExclusionReason;
  /** The commit changes only documentation, CI, build or configuration files. */
  docsOrConfigOnly?: boolean;
}

/**
 * Which commits between two validated PRs keep them in one chain (their changes become part of
 * the next step's gold tree): only docs/config-only ones, also direct commits that are not PRs,
 * or every commit (chains are then just the validated PRs in merge order).
 */
export const foldPolicies = ['docs-config', 'direct', 'all'] as const;
export type FoldPolicy = (typeof foldPolicies)[number];

export interface ChainOptions {
  minLength: number;
  maxLength: number;
  fold?: FoldPolicy;
}

function folds(commit: ChainInput, fold: FoldPolicy): boolean {
  if (commit.docsOrConfigOnly) return true;
  if (fold === 'all') return true;
  return fold === 'direct' && commit.pr === undefined;
}

/**
 * Cuts the window's first-parent history into chains. Validated PRs form a run while each one
 * starts from the state the previous one left: by default only commits that change nothing but
 * docs, CI or configuration (PRs or direct commits) may sit between two steps, their changes
 * becoming part of the next step's gold tree; any other commit (an excluded PR, a direct commit
 * changing code or tests) ends the run. `fold` relaxes this (see FoldPolicy). A run shorter than `minLength`
 * makes no chain; a run longer than `maxLength` is split into the fewest chains of at most
 * `maxLength`, with lengths as equal as possible (12 with a maximum of 11 gives 6 + 6). A chain is
 * named after its first and last PR: `pr12-pr18`.
 */
export function buildChains(
  history: ChainInput[],
  options: ChainOptions,
): { chains: Chain[]; orphans: number[] } {
  const runs: ChainInput[][] = [];
  let current: ChainInput[] = [];
  for (const commit of history) {
    if (commit.validated) current.push(commit);
    else if (!folds(commit, options.fold ?? 'docs-config')) {
      if (current.length > 0) runs.push(current);
      current = [];
    }
  }
  if (current.length > 0) runs.push(current);

  const chains: Chain[] = [];
  const orphans: number[] = [];
  for (const run of runs) {
    if (run.length < options.minLength) {
      orphans.push(...run.map((commit) => commit.pr!));
      continue;
    }
    const count = Math.ceil(run.length / options.maxLength);
    let start = 0;
    for (let i = 0; i < count; i++) {
      const length = Math.floor(run.length / count) + (i < run.length % count ? 1 : 0);
      const part = run.slice(start, start + length);
      start += length;
      if (part.length < options.minLength) {
        orphans.push(...part.map((commit) => commit.pr!));
        continue;
      }
      chains.push({
        id: `pr${part[0]!.pr}-pr${part[part.length - 1]!.pr}`,
        base: part[0]!.parent,
        prs: part.map((commit) => commit.pr!),
      });
    }
  }
  return { chains, orphans };
}
