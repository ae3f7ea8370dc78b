import type { ConditionScore, TrialRecord, TrialSpec } from '@longhaul/core';
import { type Checkpoint, checkpointsOf } from './checkpoints.js';
import type { SolveRatesOptions } from './options.js';
import { phases } from './phases.js';
import { mean, share, std } from './stats.js';

function present(values: (number | null)[]): number[] {
  return values.filter((value): value is number => value !== null);
}

/** Share of trajectories whose last produced value is above their first (those with two or more). */
function rises(trajectories: Checkpoint[][], metric: 'erosion' | 'verbosity'): number | null {
  const judged = trajectories
    .map((checkpoints) => present(checkpoints.map((checkpoint) => checkpoint[metric])))
    .filter((values) => values.length >= 2);
  return share(judged.filter((values) => values.at(-1)! > values[0]!).length, judged.length);
}

/** The Table 1 columns and the progress-phase rows of one condition. */
export function conditionScores(
  condition: string,
  trials: { spec: TrialSpec; record: TrialRecord }[],
  options: SolveRatesOptions,
): ConditionScore[] {
  const trajectories = trials.map(({ spec, record }) => checkpointsOf(spec, record, options));
  const all = trajectories.flat();
  const produced = all.filter((checkpoint) => checkpoint.produced);
  // Errored and cancelled checkpoints measured nothing: no denominator holds them.
  const scored = all.filter((checkpoint) => checkpoint.outcome === 'scored');
  const base = options.denominator === 'produced' ? produced : scored;
  const counted = (set: Checkpoint[], outcome: Checkpoint['outcome']) =>
    set.filter((checkpoint) => checkpoint.outcome === outcome).length;
  // A trajectory a fault or a cancel cut short says nothing of partial or full solving.
  const whole = trajectories.filter((checkpoints) => checkpoints.every((item) => item.outcome === 'scored'));
  const rate = (set: Checkpoint[], metric: 'strict' | 'iso' | 'core') =>
    share(set.filter((checkpoint) => checkpoint[metric]).length, set.length);
  const spread = (metric: string, values: number[]): ConditionScore[] => [
    { condition, metric: `${metric}.mean`, value: mean(values) },
    { condition, metric: `${metric}.std`, value: std(values) },
  ];
  const scores: ConditionScore[] = [
    { condition, metric: 'strict', value: rate(base, 'strict') },
    { condition, metric: 'iso', value: rate(base, 'iso') },
    { condition, metric: 'core', value: rate(base, 'core') },
    {
      condition,
      metric: 'partial',
      value: share(
        whole.filter((checkpoints) => checkpoints.some((item) => item.strict)).length,
        whole.length,
      ),
    },
    {
      condition,
      metric: 'full',
      value: share(
        whole.filter((checkpoints) => checkpoints.length > 0 && checkpoints.every((item) => item.strict))
          .length,
        whole.length,
      ),
    },
    { condition, metric: 'pass_rate.mean', value: mean(present(base.map((item) => item.passRate ?? 0))) },
    ...spread(
      'cost',
      produced.map((item) => item.costUsd),
    ),
    {
      condition,
      metric: 'cost.net',
      value: trials.reduce((sum, { record }) => sum + record.usage.costUsd, 0),
    },
    ...spread(
      'minutes',
      produced.map((item) => item.minutes),
    ),
    ...spread('erosion', present(produced.map((item) => item.erosion))),
    ...spread('verbosity', present(produced.map((item) => item.verbosity))),
    { condition, metric: 'erosion.rises', value: rises(trajectories, 'erosion') },
    { condition, metric: 'verbosity.rises', value: rises(trajectories, 'verbosity') },
    { condition, metric: 'problems', value: trajectories.length },
    { condition, metric: 'problems.scored', value: whole.length },
    { condition, metric: 'denominator.produced', value: options.denominator === 'produced' },
    { condition, metric: 'checkpoints.produced', value: produced.length },
    { condition, metric: 'checkpoints.all', value: all.length },
    { condition, metric: 'checkpoints.scored', value: scored.length },
    { condition, metric: 'checkpoints.errored', value: counted(all, 'errored') },
    { condition, metric: 'checkpoints.cancelled', value: counted(all, 'cancelled') },
    {
      condition,
      metric: 'strict.final',
      value: rate(
        base.filter((item) => item.phase === 'Final'),
        'strict',
      ),
    },
  ];
  for (const phase of phases) {
    const inPhase = base.filter((item) => item.phase === phase);
    const producedInPhase = inPhase.filter((item) => item.produced);
    const planned = all.filter((item) => item.phase === phase);
    scores.push(
      { condition, metric: `phase.${phase}.checkpoints`, value: inPhase.length },
      { condition, metric: `phase.${phase}.errored`, value: counted(planned, 'errored') },
      { condition, metric: `phase.${phase}.cancelled`, value: counted(planned, 'cancelled') },
      { condition, metric: `phase.${phase}.strict`, value: rate(inPhase, 'strict') },
      { condition, metric: `phase.${phase}.iso`, value: rate(inPhase, 'iso') },
      { condition, metric: `phase.${phase}.core`, value: rate(inPhase, 'core') },
      { condition, metric: `phase.${phase}.cost`, value: mean(producedInPhase.map((item) => item.costUsd)) },
      {
        condition,
        metric: `phase.${phase}.erosion`,
        value: mean(present(producedInPhase.map((item) => item.erosion))),
      },
      {
        condition,
        metric: `phase.${phase}.verbosity`,
        value: mean(present(producedInPhase.map((item) => item.verbosity))),
      },
    );
  }
  return scores;
}
