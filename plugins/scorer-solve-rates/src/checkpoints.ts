import {
  isError,
  type Outcome,
  type ScoreValue,
  type StepStatus,
  stepOutcome,
  type TrialRecord,
  type TrialSpec,
} from '@longhaul/core';
import type { SolveRatesOptions } from './options.js';
import { type Phase, phaseOf } from './phases.js';

/** One planned checkpoint of one trial, as the table needs it. */
export interface Checkpoint {
  trial: string;
  task: string;
  index: number;
  phase: Phase;
  /**
   * Scored, errored or cancelled (the kernel's stepOutcome): only scored checkpoints enter a
   * rate, so a fault or a cancel is never counted as unsolved.
   */
  outcome: Outcome;
  /** The agent ended the checkpoint with a workspace that was scored. */
  produced: boolean;
  strict: boolean;
  iso: boolean;
  core: boolean;
  passRate: number | null;
  costUsd: number;
  minutes: number;
  erosion: number | null;
  verbosity: number | null;
}

function solved(value: ScoreValue | undefined): boolean {
  return value === 1 || value === true;
}

function numberOr(value: ScoreValue | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * A checkpoint counts as produced when the agent's turns ended on their own (ok, failed) or at a
 * limit (timeout, budget) and the step was scored. A fault, a cancel, or a step the trial never
 * reached produced nothing: it is unsolved and has no quality metrics.
 */
function wasProduced(status: StepStatus, scores: Record<string, ScoreValue>, solveScorer: string): boolean {
  if (status === 'skipped' || status === 'cancelled' || isError(status)) return false;
  return `${solveScorer}.strict` in scores;
}

/** Every planned checkpoint of a trial, in order. */
export function checkpointsOf(
  spec: TrialSpec,
  record: TrialRecord,
  options: SolveRatesOptions,
): Checkpoint[] {
  const count = spec.task.steps.length;
  return spec.task.steps.map((step) => {
    const done = record.steps.find((candidate) => candidate.index === step.index);
    const scores = done?.scores ?? {};
    const produced = done ? wasProduced(done.status, scores, options.solveScorer) : false;
    const score = (metric: string) => (produced ? scores[`${options.solveScorer}.${metric}`] : undefined);
    const quality = (metric: string) =>
      produced ? numberOr(scores[`${options.qualityScorer}.${metric}`]) : null;
    return {
      trial: record.id,
      task: spec.task.id,
      index: step.index,
      phase: phaseOf(step.index, count),
      outcome: stepOutcome(done, record.status).outcome,
      produced,
      strict: solved(score('strict')),
      iso: solved(score('iso')),
      core: solved(score('core')),
      passRate: produced ? (numberOr(score('pass_rate')) ?? 0) : null,
      costUsd: done?.usage.costUsd ?? 0,
      minutes: (done?.durationMs ?? 0) / 60_000,
      erosion: quality('erosion'),
      verbosity: quality('verbosity'),
    };
  });
}
