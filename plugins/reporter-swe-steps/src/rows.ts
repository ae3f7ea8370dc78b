import type { ConditionScore, ScoreValue } from '@longhaul/core';

export interface Counts {
  prs: number;
  prs_passed: number;
  /** Absent in scores written before PRs' outcomes were counted. */
  prs_errored?: number;
  prs_cancelled?: number;
  /** Absent in scores written before PRs with no F2P test left were told apart. */
  prs_not_judged?: number;
  pr_success: number | null;
  tasks: number;
  tasks_whole?: number;
  tasks_completed: number;
  tasks_not_judged?: number;
  f2p: number | null;
  p2p: number | null;
  usd_per_task: number | null;
}

export interface Curves {
  agent: (number | null)[];
  gold: (number | null)[];
  gap: (number | null)[];
}

export interface Health {
  cognitive: Curves;
  debt: Curves;
  repositories: Record<string, { cognitive: Curves; debt: Curves }>;
}

/** What swe-steps-rates gave one condition. */
export interface ConditionRow {
  condition: string;
  values: Record<string, ScoreValue>;
  setting: string;
  repositories: Record<string, Counts>;
  chainLength: Record<string, { prs: number; passed: number; pr_success: number | null }>;
  suiteSize: Record<string, { prs: number; passed: number; pr_success: number | null }>;
  health?: Health;
}

/** The rows of the scorer labelled `scorer`, in condition order. */
export function rowsOf(
  scores: readonly (ConditionScore & { scorer: string })[],
  scorer: string,
): ConditionRow[] {
  const rows = new Map<string, ConditionRow>();
  for (const score of scores) {
    if (score.scorer !== scorer || score.condition === undefined) continue;
    const row = rows.get(score.condition) ?? {
      condition: score.condition,
      values: {},
      setting: '',
      repositories: {},
      chainLength: {},
      suiteSize: {},
    };
    row.values[score.metric] = score.value;
    if (score.metric === 'pr_success' && score.detail) Object.assign(row, score.detail);
    if (score.metric === 'health_tasks' && score.detail) row.health = score.detail as Health;
    rows.set(score.condition, row);
  }
  return [...rows.values()].sort((a, b) =>
    a.condition < b.condition ? -1 : a.condition > b.condition ? 1 : 0,
  );
}
