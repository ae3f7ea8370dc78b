import type { Manifest, PrRecord } from './dataset.js';

/** The kind of a dropped test's reason: `import-error: No module named 'x'` → `import-error`. */
export function reasonKind(reason: string): string {
  const colon = reason.indexOf(':');
  return colon > 0 ? reason.slice(0, colon) : reason;
}

/** Dropped tests counted by the kind of their reason, most first. */
export function droppedByReason(prs: readonly Pick<PrRecord, 'dropped_tests'>[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const pr of prs)
    for (const test of pr.dropped_tests)
      counts.set(reasonKind(test.reason), (counts.get(reasonKind(test.reason)) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** What one PR of a dataset brings: its tests, its support files, what was dropped and why. */
export interface PrSupport {
  pr: number;
  /** The chain holding the PR (its id), if any. */
  chain?: string;
  status: 'validated' | 'excluded';
  excluded?: string;
  testModules: string[];
  supportFiles: string[];
  f2p: number;
  p2p: number;
  /** Every dropped test with its full reason. */
  dropped: { id: string; reason: string }[];
}

export function supportOf(manifest: Manifest): PrSupport[] {
  const chainOf = new Map<number, string>();
  for (const chain of manifest.chains) for (const pr of chain.prs) chainOf.set(pr, chain.id);
  return manifest.prs.map((pr) => ({
    pr: pr.pr_number,
    ...(chainOf.has(pr.pr_number) ? { chain: chainOf.get(pr.pr_number)! } : {}),
    status: pr.status,
    ...(pr.excluded ? { excluded: pr.excluded.reason } : {}),
    testModules: pr.test_modules ?? [],
    supportFiles: pr.support_files ?? [],
    f2p: pr.fail_to_pass.length,
    p2p: pr.pass_to_pass.length,
    dropped: pr.dropped_tests,
  }));
}

/** The settings a check runs, by the script that runs each. */
export const checkSettings = [
  { setting: 'individual', script: 'isolated' },
  { setting: 'global', script: 'conversation' },
  { setting: 'prd', script: 'single-shot' },
] as const;
export type Setting = (typeof checkSettings)[number]['setting'];

/** One PR's outcome for one agent in one setting: whether it was solved, and its F2P share. */
export interface PrOutcome {
  success: boolean;
  /**
   * False when the PR had no F2P test left to judge it on (PRD: later commits of the chain
   * rewrote the module of every one): neither solved nor failed. Absent: judged.
   */
  judged?: boolean;
  /** Percent of the PR's F2P tests that passed (null: the PR has none scored). */
  f2p: number | null;
  /**
   * The F2P tests that were judged and passed, when the scorer gave them: in PRD fewer than the
   * dataset lists (the ones a later commit rewrote are left out), so pooling counts these.
   */
  f2pTests?: { passed: number; total: number };
  /** Set when a fault or a cancel lost the PR (`error:sandbox`, `cancelled`): it was not scored. */
  error?: string;
}

/** Per PR, per agent (`oracle`, `nochange`), per setting. */
export type CheckResults = Map<number, Map<string, Map<Setting, PrOutcome>>>;

/**
 * What a check concludes per agent and setting: PRs solved of the judged ones, PRs not judged,
 * tasks completed (every judged PR solved) of the tasks with a PR judged, pooled F2P.
 */
export interface CheckTotals {
  agent: string;
  setting: Setting;
  /** Judged PRs: what `solved` is out of. */
  prs: number;
  solved: number;
  notJudged: number;
  /** Tasks with at least one PR judged: what `tasksCompleted` is out of. */
  tasks: number;
  tasksCompleted: number;
  /** Tasks none of whose PRs was judged. */
  tasksNotJudged: number;
  /** F2P tests passed over all F2P tests judged, pooled over the PRs, percent. */
  f2p: number | null;
  /** The counts behind `f2p`. */
  f2pPassed: number;
  f2pTotal: number;
}

export function checkTotals(manifest: Manifest, results: CheckResults): CheckTotals[] {
  const f2pOf = new Map(manifest.prs.map((pr) => [pr.pr_number, pr.fail_to_pass.length]));
  const agents = [...new Set([...results.values()].flatMap((byAgent) => [...byAgent.keys()]))].sort();
  const totals: CheckTotals[] = [];
  for (const agent of agents)
    for (const { setting } of checkSettings) {
      const row: CheckTotals = {
        agent,
        setting,
        prs: 0,
        solved: 0,
        notJudged: 0,
        tasks: 0,
        tasksCompleted: 0,
        tasksNotJudged: 0,
        f2p: null,
        f2pPassed: 0,
        f2pTotal: 0,
      };
      let passed = 0;
      let all = 0;
      for (const chain of manifest.chains) {
        let complete = true;
        let seen = false;
        let judged = false;
        for (const pr of chain.prs) {
          const outcome = results.get(pr)?.get(agent)?.get(setting);
          if (!outcome) continue;
          seen = true;
          if (outcome.judged === false) {
            row.notJudged++;
            continue;
          }
          judged = true;
          row.prs++;
          if (outcome.success) row.solved++;
          else complete = false;
          const count = f2pOf.get(pr) ?? 0;
          if (outcome.f2pTests) {
            passed += outcome.f2pTests.passed;
            all += outcome.f2pTests.total;
          } else if (outcome.f2p !== null && count > 0) {
            passed += (outcome.f2p / 100) * count;
            all += count;
          }
        }
        if (seen && !judged) row.tasksNotJudged++;
        else if (seen) {
          row.tasks++;
          if (complete) row.tasksCompleted++;
        }
      }
      row.f2p = all > 0 ? Math.round((1000 * passed) / all) / 10 : null;
      row.f2pPassed = Math.round(passed);
      row.f2pTotal = all;
      totals.push(row);
    }
  return totals;
}

/** Whether a check found the dataset sound: the oracle solves every judged PR, doing nothing passes no F2P test. */
export function isSound(totals: readonly CheckTotals[]): boolean {
  return totals.every((total) =>
    total.agent === 'oracle' ? total.prs > 0 && total.solved === total.prs : (total.f2p ?? 0) === 0,
  );
}
