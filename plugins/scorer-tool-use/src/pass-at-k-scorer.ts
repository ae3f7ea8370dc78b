import type {
  ConditionScore,
  ExperimentScoreContext,
  Figure,
  ScorerReportContext,
  TrialRecord,
  TrialSpec,
} from '@longhaul/core';
import { failureModes } from './failure-modes.js';
import { passAtKFigures } from './idebench-figures.js';
import type { PassAtKOptions } from './options.js';
import { trialPassRate, trialSuccess } from './outcome.js';
import { consistency, mean, passAtK, wald, wilson } from './stats.js';

export const passAtKVersion = '1.0.0';

type Trial = { spec: TrialSpec; record: TrialRecord };

function sum(trials: readonly Trial[], metric: string): number {
  return trials.reduce((n, t) => n + Number(t.record.scores[metric] ?? 0), 0);
}

/** P(B | A) from summed bigram counts `tool-use.bigram.A--B`, keyed `A--B`. */
export function transitions(trials: readonly Trial[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const t of trials)
    for (const [key, value] of Object.entries(t.record.scores))
      if (key.startsWith('tool-use.bigram.') && typeof value === 'number')
        counts.set(
          key.slice('tool-use.bigram.'.length),
          (counts.get(key.slice('tool-use.bigram.'.length)) ?? 0) + value,
        );
  const outgoing = new Map<string, number>();
  for (const [pair, n] of counts) {
    const from = pair.slice(0, pair.indexOf('--'));
    outgoing.set(from, (outgoing.get(from) ?? 0) + n);
  }
  return Object.fromEntries(
    [...counts].map(([pair, n]) => [pair, n / outgoing.get(pair.slice(0, pair.indexOf('--')))!]),
  );
}

/**
 * Experiment-scope IDE-Bench statistics per condition: pass@1 (first attempt) and unbiased pass@k
 * with Wilson (and Wald) 95% intervals over tasks, run-level success, tokens per success and
 * efficiency, per-task consistency (σ, ICC), and the tool-use aggregates of the `tool-use` scorer.
 */
export class PassAtKScorer {
  readonly scope = 'experiment';
  readonly version = passAtKVersion;

  constructor(private readonly options: PassAtKOptions) {}

  /** pass@k per model with Wilson intervals and the task × model heatmap: IDE-Bench's headline. */
  figures(ctx: ScorerReportContext): Figure[] {
    return passAtKFigures(ctx, this.options.successMetric);
  }

  async score(ctx: ExperimentScoreContext): Promise<ConditionScore[]> {
    const byCondition = new Map<string, Trial[]>();
    for (const trial of ctx.trials) {
      const key = trial.spec.condition.key;
      byCondition.set(key, [...(byCondition.get(key) ?? []), trial]);
    }
    return [...byCondition].flatMap(([condition, trials]) =>
      this.condition(trials).map((score) => ({ ...score, condition })),
    );
  }

  private condition(trials: Trial[]): Omit<ConditionScore, 'condition'>[] {
    const metric = this.options.successMetric;
    const byTask = new Map<string, Trial[]>();
    for (const trial of trials)
      byTask.set(trial.spec.task.id, [...(byTask.get(trial.spec.task.id) ?? []), trial]);
    const tasks = [...byTask].map(([task, attempts]) => {
      const sorted = attempts.sort((a, b) => a.spec.repeat - b.spec.repeat);
      const outcomes = sorted.map((t) => trialSuccess(t.record, metric));
      return { task, trials: sorted, outcomes: outcomes.filter((o): o is boolean => o !== null) };
    });
    const judged = tasks.filter((t) => t.outcomes.length > 0);
    const n = judged.length;
    const scores: Omit<ConditionScore, 'condition'>[] = [{ metric: 'tasks', value: n }];
    if (n === 0) return scores;

    const first = mean(judged.map((t) => (t.outcomes[0] ? 1 : 0)));
    const rows: Record<string, unknown>[] = [];
    const interval = (name: string, p: number) => {
      const w = wilson(p, n);
      scores.push(
        { metric: name, value: p },
        { metric: `${name}.wilson_low`, value: w.low },
        { metric: `${name}.wilson_high`, value: w.high },
        { metric: `${name}.wilson_half_width`, value: w.halfWidth },
        { metric: `${name}.wald_half_width`, value: wald(p, n) },
      );
      rows.push({ metric: name, value: p, wilson: [w.low, w.high], wald: wald(p, n) });
    };
    interval('first_attempt', first);
    const minAttempts = Math.min(...judged.map((t) => t.outcomes.length));
    let best: number | undefined;
    for (const k of this.options.k) {
      if (k > minAttempts) continue;
      const p = mean(judged.map((t) => passAtK(t.outcomes.length, t.outcomes.filter(Boolean).length, k)));
      interval(`pass_at_${k}`, p);
      if (k > 1) best = p;
    }
    const all = judged.flatMap((t) =>
      t.trials.filter((trial) => trialSuccess(trial.record, metric) !== null),
    );
    const successes = all.filter((t) => trialSuccess(t.record, metric));
    const tokens = (t: Trial) => t.record.usage.inputTokens + t.record.usage.outputTokens;
    const perSuccess = successes.length > 0 ? mean(successes.map(tokens)) : null;
    const top = best ?? first;
    const rates = judged.map((t) =>
      t.trials.map(
        (trial) =>
          trialPassRate(trial.record, this.options.passRateMetric) ??
          (trialSuccess(trial.record, metric) ? 1 : 0),
      ),
    );
    const c = consistency(rates);
    scores.push(
      { metric: 'success_rate', value: successes.length / all.length },
      { metric: 'attempts', value: all.length },
      { metric: 'tokens_per_success', value: perSuccess },
      { metric: 'efficiency', value: perSuccess ? (100 * top) / (perSuccess / 1000) : null },
      { metric: 'consistency.sigma', value: c.sigma },
      { metric: 'consistency.between', value: c.between },
      { metric: 'consistency.within', value: c.within },
      { metric: 'consistency.icc', value: c.icc },
      { metric: 'consistency.reliability', value: c.reliability },
    );

    const withToolUse = all.filter((t) => typeof t.record.scores['tool-use.calls'] === 'number');
    if (withToolUse.length > 0) {
      const edits = sum(withToolUse, 'tool-use.edits');
      const iterations = sum(withToolUse, 'tool-use.iterations');
      const before = withToolUse
        .map((t) => t.record.scores['tool-use.tools_before_first_edit'])
        .filter((v): v is number => typeof v === 'number');
      const failed = withToolUse.filter((t) => trialSuccess(t.record, metric) === false);
      scores.push(
        { metric: 'read_to_edit', value: edits > 0 ? sum(withToolUse, 'tool-use.reads') / edits : null },
        { metric: 'tools_before_first_edit', value: before.length > 0 ? mean(before) : null },
        { metric: 'iterations.mean', value: iterations / withToolUse.length },
        ...(['productive', 'exploration', 'non_productive'] as const).map((kind) => ({
          metric: `iterations.${kind}_share`,
          value: iterations > 0 ? sum(withToolUse, `tool-use.iterations.${kind}`) / iterations : null,
        })),
        { metric: 'failure.failed_trials', value: failed.length },
        ...failureModes.map((mode) => ({
          metric: `failure.${mode}`,
          value:
            failed.length > 0
              ? failed.filter((t) => t.record.scores[`tool-use.failure.${mode}`] === true).length /
                failed.length
              : null,
        })),
        ...Object.entries(transitions(withToolUse)).map(([pair, p]) => ({
          metric: `transition.${pair}`,
          value: p,
        })),
      );
    }
    scores[0] = {
      ...scores[0]!,
      detail: { table: rows, tasks: tasks.map((t) => ({ task: t.task, outcomes: t.outcomes })) },
    };
    return scores;
  }
}
