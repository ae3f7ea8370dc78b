import type { ConditionScore, TrialRecord, TrialSpec } from '@longhaul/core';

/** The progress bin (1-based) of PR k (1-based) of n: ⌈bins · k / n⌉. */
export const progressBin = (k: number, n: number, bins: number) => Math.ceil((bins * k) / n);

type Series = (number | null)[];

const mean = (values: number[]) =>
  values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;

/** Per bin, the mean of the values whose PR falls in it. */
export function binned(values: readonly (number | null)[], bins: number): Series {
  const buckets: number[][] = Array.from({ length: bins }, () => []);
  values.forEach((value, i) => {
    if (value !== null) buckets[progressBin(i + 1, values.length, bins) - 1]!.push(value);
  });
  return buckets.map(mean);
}

/** Per bin, the mean over series (nulls left out). */
function meanSeries(series: readonly Series[], bins: number): Series {
  return Array.from({ length: bins }, (_, b) =>
    mean(series.map((s) => s[b]).filter((v): v is number => v !== null && v !== undefined)),
  );
}

const minus = (a: Series, b: Series): Series =>
  a.map((x, i) => (x === null || b[i] == null ? null : x - b[i]!));
const slope = (s: Series) => (s[0] == null || s.at(-1) == null ? null : s.at(-1)! - s[0]!);

export interface HealthCurves {
  agent: Series;
  gold: Series;
  /** agent − gold, per bin. */
  gap: Series;
}

export const healthMeasures = [
  ['cognitive', 'delta_cognitive', 'gold_delta_cognitive'],
  ['debt', 'delta_debt_minutes', 'gold_delta_debt_minutes'],
] as const;

/**
 * The paper's health protocol over one condition's trials: chains of at least `minPrs` PRs, Δ from
 * the base commit after each PR put into `bins` progress bins, averaged per chain and then over
 * chains (per repository and overall), for the agent and the gold trace.
 */
export function healthScores(
  condition: string,
  trials: { spec: TrialSpec; record: TrialRecord }[],
  options: { label: string; minPrs: number; bins: number; repositoryOf: (spec: TrialSpec) => string },
): ConditionScore[] {
  const value = (record: TrialRecord, index: number, key: string) => {
    const v = record.steps.find((s) => s.index === index)?.scores[`${options.label}.${key}`];
    return typeof v === 'number' ? v : null;
  };
  const eligible = trials.filter(
    ({ spec, record }) =>
      spec.task.steps.length >= options.minPrs &&
      record.steps.some((s) => `${options.label}.cognitive` in s.scores),
  );
  if (eligible.length === 0) return [];
  const curves = (group: typeof eligible) =>
    Object.fromEntries(
      healthMeasures.map(([name, agentKey, goldKey]) => {
        const per = (key: string) =>
          group.map(({ spec, record }) =>
            binned(
              spec.task.steps.map((step) => value(record, step.index, key)),
              options.bins,
            ),
          );
        const agent = meanSeries(per(agentKey), options.bins);
        const gold = meanSeries(per(goldKey), options.bins);
        return [name, { agent, gold, gap: minus(agent, gold) } satisfies HealthCurves];
      }),
    ) as Record<'cognitive' | 'debt', HealthCurves>;
  const overall = curves(eligible);
  const repositories = [...new Set(eligible.map(({ spec }) => options.repositoryOf(spec)))].sort();
  const detail = {
    ...overall,
    repositories: Object.fromEntries(
      repositories.map((repo) => [
        repo,
        curves(eligible.filter(({ spec }) => options.repositoryOf(spec) === repo)),
      ]),
    ),
  };
  const scores: ConditionScore[] = [{ condition, metric: 'health_tasks', value: eligible.length, detail }];
  for (const [name] of healthMeasures) {
    const { agent, gold, gap } = overall[name];
    const gaps = gap.filter((v): v is number => v !== null);
    scores.push(
      { condition, metric: `health_${name}_gap`, value: mean(gaps) },
      { condition, metric: `health_${name}_slope`, value: slope(agent) },
      { condition, metric: `health_${name}_gold_slope`, value: slope(gold) },
    );
  }
  return scores;
}
