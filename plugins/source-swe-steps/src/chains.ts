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
}

export interface ChainOptions {
  minLength: number;
  maxLength: number;
}

/** Excluded PRs whose changes can ride along with the next step without changing what it asks. */
const foldable = new Set<ExclusionReason | undefined>(['docs-only', 'config-only']);

/**
 * Cuts the window's first-parent history into chains. Validated PRs form a run while each one
 * starts from the state the previous one left: only docs-only and CI/config-only PRs may sit
 * between two steps (their changes are part of the next step's gold tree). Any other commit (an
 * excluded PR, a direct commit that is not a PR) ends the run. A run shorter than `minLength`
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
    else if (!(commit.pr !== undefined && foldable.has(commit.reason))) {
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
