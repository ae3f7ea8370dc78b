import type { ConditionScore, ExperimentScoreContext, Scorer, TrialRecord, TrialSpec } from '@longhaul/core';
import { healthScores } from './health-bins.js';
import type { RatesOptions } from './options.js';
import {
  addTrial,
  type Counts,
  emptyCounts,
  prsOf,
  ratio,
  repositoryOf,
  rowOf,
  settingOfScript,
  sizeBin,
} from './rates.js';

type Trial = { spec: TrialSpec; record: TrialRecord };

/** What a condition is apart from its script, so the settings of one agent can be compared. */
const agentOf = ({ condition }: TrialSpec) =>
  [condition.harness.label, condition.memory.label, condition.environment.label, condition.model ?? ''].join(
    '|',
  );

const bump = (table: Map<string, { prs: number; passed: number }>, key: string, passed: boolean) => {
  const entry = table.get(key) ?? { prs: 0, passed: 0 };
  entry.prs += 1;
  if (passed) entry.passed += 1;
  table.set(key, entry);
};

const rates = (table: Map<string, { prs: number; passed: number }>) =>
  Object.fromEntries(
    [...table].map(([key, { prs, passed }]) => [key, { prs, passed, pr_success: ratio(passed, prs) }]),
  );

/**
 * Experiment scorer `swe-steps-rates`: per condition, SWE-STEPS's Table 3 (PRs passed, PR success
 * %, tasks completed, $ per task; PRs and tasks not judged counted apart) and Table 8 (P2P % and F2P % per repository and pooled over
 * tests), success against chain length and active suite size, and the inflation of the
 * individual setting over global and PRD for the same agent, in points.
 */
export class SweStepsRatesScorer implements Extract<Scorer, { scope: 'experiment' }> {
  readonly scope = 'experiment';
  readonly version = '1';

  constructor(private readonly options: RatesOptions) {}

  async score(ctx: ExperimentScoreContext): Promise<ConditionScore[]> {
    const byCondition = new Map<string, Trial[]>();
    for (const trial of ctx.trials) {
      const list = byCondition.get(trial.spec.condition.key) ?? [];
      list.push(trial);
      byCondition.set(trial.spec.condition.key, list);
    }
    const success = new Map<string, number | null>();
    const scores: ConditionScore[] = [];
    for (const [condition, trials] of [...byCondition].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const total = emptyCounts();
      const repositories = new Map<string, Counts>();
      const chainLength = new Map<string, { prs: number; passed: number }>();
      const suiteSize = new Map<string, { prs: number; passed: number }>();
      for (const { spec, record } of trials) {
        const prs = prsOf(record, spec, this.options.scorer);
        addTrial(total, prs, record.usage.costUsd);
        const repository = repositoryOf(spec);
        const counts = repositories.get(repository) ?? emptyCounts();
        addTrial(counts, prs, record.usage.costUsd);
        repositories.set(repository, counts);
        for (const pr of prs.filter((item) => item.outcome === 'scored' && item.judged)) {
          bump(chainLength, String(prs.length), pr.passed);
          if (typeof pr.suiteSize === 'number')
            bump(suiteSize, sizeBin(pr.suiteSize, this.options.suiteBins), pr.passed);
        }
      }
      const row = rowOf(total);
      success.set(condition, row.pr_success);
      const detail = {
        setting: settingOfScript[trials[0]!.spec.condition.script.id] ?? trials[0]!.spec.condition.script.id,
        repositories: Object.fromEntries(
          [...repositories]
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([name, counts]) => [name, rowOf(counts)]),
        ),
        chainLength: rates(chainLength),
        suiteSize: rates(suiteSize),
      };
      for (const [metric, value] of Object.entries(row)) {
        scores.push({ condition, metric, value, ...(metric === 'pr_success' ? { detail } : {}) });
      }
      scores.push(
        ...healthScores(condition, trials, {
          label: this.options.health,
          minPrs: this.options.healthMinPrs,
          bins: this.options.healthBins,
          repositoryOf,
        }),
      );
    }
    scores.push(...this.inflation(ctx.trials, success));
    return scores;
  }

  /** individual − global and individual − PRD PR success, in points, on the individual condition. */
  private inflation(trials: Trial[], success: Map<string, number | null>): ConditionScore[] {
    const conditions = new Map<string, TrialSpec>();
    for (const { spec } of trials) conditions.set(spec.condition.key, spec);
    const settingOf = (spec: TrialSpec) => settingOfScript[spec.condition.script.id];
    const scores: ConditionScore[] = [];
    for (const [key, spec] of conditions) {
      if (settingOf(spec) !== 'individual') continue;
      for (const [setting, metric] of [
        ['global', 'inflation_global'],
        ['prd', 'inflation_prd'],
      ] as const) {
        const partners = [...conditions].filter(
          ([, other]) => settingOf(other) === setting && agentOf(other) === agentOf(spec),
        );
        if (partners.length !== 1) continue;
        const [own, theirs] = [success.get(key), success.get(partners[0]![0])];
        const value = own == null || theirs == null ? null : own - theirs;
        scores.push({ condition: key, metric, value, detail: { against: partners[0]![0] } });
      }
    }
    return scores;
  }
}
