import { type Outcome, type ScoreValue, stepOutcome, type TrialRecord, type TrialSpec } from '@longhaul/core';

/** The paper's name of the setting a script runs. */
export const settingOfScript: Record<string, string> = {
  isolated: 'individual',
  conversation: 'global',
  'single-shot': 'prd',
  checkpoints: 'local',
};

export interface Counts {
  /** Scored and judged PRs: what PR success is over. */
  prs: number;
  prsPassed: number;
  /** PRs lost to a fault, or never reached after one; and PRs the user or the runner stopped. */
  prsErrored: number;
  prsCancelled: number;
  /**
   * Scored PRs with no F2P test left to judge them on (in PRD, later commits of the chain rewrote
   * the module of every one): neither passed nor failed, counted apart from `prs`.
   */
  prsNotJudged: number;
  tasks: number;
  /** Tasks whose every PR was scored and at least one judged: what tasks completed is out of. */
  tasksWhole: number;
  tasksCompleted: number;
  /** Tasks whose every PR was scored and none judged. */
  tasksNotJudged: number;
  f2pPassed: number;
  f2pTotal: number;
  p2pPassed: number;
  p2pTotal: number;
  usd: number;
}

export const emptyCounts = (): Counts => ({
  prs: 0,
  prsPassed: 0,
  prsErrored: 0,
  prsCancelled: 0,
  prsNotJudged: 0,
  tasks: 0,
  tasksWhole: 0,
  tasksCompleted: 0,
  tasksNotJudged: 0,
  f2pPassed: 0,
  f2pTotal: 0,
  p2pPassed: 0,
  p2pTotal: 0,
  usd: 0,
});

export const ratio = (part: number, whole: number) => (whole === 0 ? null : (100 * part) / whole);

/** The repository a task comes from (metadata.sweSteps.repository), or the task id. */
export function repositoryOf(spec: TrialSpec): string {
  const meta = spec.task.metadata.sweSteps as { repository?: unknown } | undefined;
  return typeof meta?.repository === 'string' ? meta.repository : spec.task.id;
}

const num = (value: ScoreValue | undefined) => (typeof value === 'number' ? value : 0);

/**
 * One trial's PRs: outcome, whether judged, success and test counts per PR, in chain order. The
 * outcome is the kernel's stepOutcome: an errored or cancelled PR is counted apart, never as a
 * failed one. A scored PR whose success is no value (null) had no F2P test to judge it on.
 */
export function prsOf(record: TrialRecord, spec: TrialSpec, label: string) {
  return spec.task.steps.map((step) => {
    const done = record.steps.find((s) => s.index === step.index);
    const scores = done?.scores ?? {};
    const outcome: Outcome = stepOutcome(done, record.status).outcome;
    const success = `${label}.success`;
    return {
      outcome,
      judged: !(success in scores && scores[success] === null),
      passed: scores[`${label}.success`] === 1,
      f2pPassed: num(scores[`${label}.f2p_passed`]),
      f2pTotal: num(scores[`${label}.f2p_total`]),
      p2pPassed: num(scores[`${label}.p2p_passed`]),
      p2pTotal: num(scores[`${label}.p2p_total`]),
      suiteSize: scores[`${label}.suite_size`],
    };
  });
}

/**
 * Adds one trial to counts. Per-test figures are pooled: Σ passed / Σ total over each PR's own
 * lists, of scored PRs only (a PR not judged has no F2P test, its P2P tests count). A task is
 * completed when every PR was scored and every judged one passed; a task a fault or a cancel cut
 * short, or whose PRs were none judged, is not in the count it is out of (`tasksWhole`).
 */
export function addTrial(counts: Counts, prs: ReturnType<typeof prsOf>, usd: number): void {
  counts.tasks += 1;
  counts.usd += usd;
  if (prs.every((pr) => pr.outcome === 'scored')) {
    const judged = prs.filter((pr) => pr.judged);
    if (judged.length === 0) counts.tasksNotJudged += 1;
    else {
      counts.tasksWhole += 1;
      if (judged.every((pr) => pr.passed)) counts.tasksCompleted += 1;
    }
  }
  for (const pr of prs) {
    if (pr.outcome === 'errored') counts.prsErrored += 1;
    if (pr.outcome === 'cancelled') counts.prsCancelled += 1;
    if (pr.outcome !== 'scored') continue;
    counts.p2pPassed += pr.p2pPassed;
    counts.p2pTotal += pr.p2pTotal;
    if (!pr.judged) {
      counts.prsNotJudged += 1;
      continue;
    }
    counts.prs += 1;
    if (pr.passed) counts.prsPassed += 1;
    counts.f2pPassed += pr.f2pPassed;
    counts.f2pTotal += pr.f2pTotal;
  }
}

/** The table row of counts: PR success, pooled F2P and P2P, $ per task. */
export function rowOf(counts: Counts) {
  return {
    prs: counts.prs,
    prs_passed: counts.prsPassed,
    prs_errored: counts.prsErrored,
    prs_cancelled: counts.prsCancelled,
    prs_not_judged: counts.prsNotJudged,
    pr_success: ratio(counts.prsPassed, counts.prs),
    tasks: counts.tasks,
    tasks_whole: counts.tasksWhole,
    tasks_completed: counts.tasksCompleted,
    tasks_not_judged: counts.tasksNotJudged,
    f2p: ratio(counts.f2pPassed, counts.f2pTotal),
    f2p_passed: counts.f2pPassed,
    f2p_total: counts.f2pTotal,
    p2p: ratio(counts.p2pPassed, counts.p2pTotal),
    p2p_passed: counts.p2pPassed,
    p2p_total: counts.p2pTotal,
    usd_per_task: counts.tasks === 0 ? null : counts.usd / counts.tasks,
  };
}

/** The label of the bin `size` falls in, for bins closed above at each edge (`1-10`, `11-50`, `>500`). */
export function sizeBin(size: number, edges: readonly number[]): string {
  let low = 1;
  for (const edge of edges) {
    if (size <= edge) return `${low}-${edge}`;
    low = edge + 1;
  }
  return `>${edges.at(-1) ?? 0}`;
}
