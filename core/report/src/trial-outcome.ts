import { countOutcomes, type StepStatus, stepOutcome, type TrialRecord } from '@longhaul/core';
import { tamperKey } from './flags.js';

/** How a step ended, as its colour shows it. */
export type StepTone = 'solved' | 'unsolved' | 'scored' | 'errored' | 'cancelled';

/** How a trial ended, as its colour shows it: by what it solved, not by whether it ran. */
export type TrialTone = 'solved' | 'partial' | 'unsolved' | 'scored' | 'errored' | 'cancelled' | 'running';

/**
 * A count beside the solved steps that a reader must see (failed tool calls, and the signals
 * other scorers add): `warn` when it is not zero.
 */
export interface TrialSignal {
  /** What it counts: `tools.failed` (the steps' failed tool calls), or a score `<scorer>.<metric>`. */
  key: string;
  label: string;
  value: number;
  tone: 'ok' | 'warn';
}

export interface TrialOutcome {
  /** The task's steps: the most any trial of it reached. */
  steps: number;
  /** Steps whose solve score is 1; null when no step has a solve score (nothing says solved). */
  solved: number | null;
  scored: number;
  errored: number;
  cancelled: number;
  errorClasses: Record<string, number>;
  tone: TrialTone;
  signals: TrialSignal[];
}

interface StepLike {
  status: StepStatus;
  scores: Record<string, number | boolean | null>;
  /** The step's tool calls and failed ones, as the kernel recorded them. */
  tools?: { calls: number; failed: number };
}

const isOne = (value: number | boolean | null | undefined) => value === true || value === 1;

export function stepTone(step: StepLike, trialStatus: TrialRecord['status'], solveKey: string): StepTone {
  const { outcome } = stepOutcome(step, trialStatus);
  if (outcome === 'errored') return 'errored';
  if (outcome !== 'scored') return 'cancelled';
  if (!(solveKey in step.scores) || step.scores[solveKey] === null) return 'scored';
  return isOne(step.scores[solveKey]) ? 'solved' : 'unsolved';
}

/**
 * A trial's failed tool calls: the steps' recorded calls where the kernel recorded them, else the
 * tool-use scorer's count. Absent when neither says (not measured is not 0).
 */
function failedToolCalls(trial: {
  scores: Record<string, number | boolean | null>;
  steps: StepLike[];
}): number | undefined {
  const recorded = trial.steps.filter((step) => step.tools !== undefined);
  if (recorded.length > 0) return recorded.reduce((sum, step) => sum + step.tools!.failed, 0);
  const scored = trial.scores['tool-use.failed_calls'];
  return typeof scored === 'number' ? scored : undefined;
}

/** A trial at a glance: solved x/y steps, errored and cancelled steps, failed tool calls. */
export function trialOutcome(
  trial: {
    status: TrialRecord['status'];
    scores: Record<string, number | boolean | null>;
    steps: StepLike[];
  },
  planned: number,
  solveKey: string,
): TrialOutcome {
  const counts = countOutcomes(trial.steps.map((step) => stepOutcome(step, trial.status)));
  const tones = trial.steps.map((step) => stepTone(step, trial.status, solveKey));
  const judged = tones.filter((tone) => tone === 'solved' || tone === 'unsolved').length;
  const solved = judged === 0 ? null : tones.filter((tone) => tone === 'solved').length;
  const steps = Math.max(planned, trial.steps.length);
  const tone: TrialTone =
    trial.status === 'running' || trial.status === 'pending'
      ? 'running'
      : trial.status.startsWith('error:')
        ? 'errored'
        : trial.status === 'cancelled'
          ? 'cancelled'
          : solved === null
            ? 'scored'
            : solved === steps
              ? 'solved'
              : solved === 0
                ? 'unsolved'
                : 'partial';
  const failed = failedToolCalls(trial);
  const signals: TrialSignal[] =
    failed === undefined
      ? []
      : [
          {
            key: 'tools.failed',
            label: 'failed tool calls',
            value: failed,
            tone: failed > 0 ? 'warn' : 'ok',
          },
        ];
  // Tamper signals of the integrity scorer, summed over the steps that have a value.
  const tamper = trial.steps
    .map((step) => step.scores[tamperKey])
    .filter((value): value is number => typeof value === 'number');
  if (tamper.length > 0) {
    const value = tamper.reduce((sum, count) => sum + count, 0);
    signals.push({ key: tamperKey, label: 'tamper signals', value, tone: value > 0 ? 'warn' : 'ok' });
  }
  return {
    steps,
    solved,
    scored: counts.scored,
    errored: counts.errored,
    cancelled: counts.cancelled,
    errorClasses: counts.errorClasses,
    tone,
    signals,
  };
}
