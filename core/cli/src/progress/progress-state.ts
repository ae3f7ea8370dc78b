import type { StampedRunEvent } from '@longhaul/core';

export interface TrialProgress {
  id: string;
  task: string;
  condition: string;
  steps: number;
  /** 1-based steps the current turn works on (empty before the first turn). */
  current: number[];
  /** Feedback cycle of the current turn (0: the step's first turn). */
  cycle: number;
  startedAt: number;
  /** What the trial is doing: opening its sandbox, the agent's turn, or scoring. */
  phase: 'sandbox' | 'agent' | 'scoring';
  /** When the current step started, and when its wall clock runs out (unknown before a turn). */
  stepStartedAt?: number;
  deadline?: number;
  /** Steps the trial has not completed yet. */
  stepsLeft: number;
  /** The trial's metered cost so far (the gateway's), as trial.json will hold it. */
  costUsd: number;
}

/** What the progress views show, folded from run events. */
export class ProgressState {
  readonly running = new Map<string, TrialProgress>();
  total = 0;
  done = 0;
  /** When this attempt of the run started. */
  startedAt?: number;
  /** Steps completed in this attempt, and steps planned by the trials that have started. */
  stepsDone = 0;
  /** Metered cost of the trials that ended in this attempt. */
  endedUsd = 0;
  private stepsStarted = 0;
  private trialsStarted = 0;

  apply(event: StampedRunEvent): void {
    switch (event.type) {
      case 'run.start':
        this.total = event.trials;
        this.done = event.complete ?? 0;
        this.startedAt = Date.parse(event.ts);
        break;
      case 'trial.start':
        this.trialsStarted++;
        this.stepsStarted += event.steps;
        this.running.set(event.trialId, {
          id: event.trialId,
          task: event.task,
          condition: event.condition,
          steps: event.steps,
          current: [],
          cycle: 0,
          startedAt: Date.parse(event.ts),
          phase: 'sandbox',
          stepsLeft: event.steps,
          costUsd: 0,
        });
        break;
      case 'step.start': {
        const trial = this.running.get(event.trialId);
        // A turn over several steps opens them together: the first one's start is the turn's.
        if (trial && !trial.current.includes(event.step + 1)) trial.stepStartedAt = Date.parse(event.ts);
        break;
      }
      case 'turn.start': {
        const trial = this.running.get(event.trialId);
        if (trial) {
          trial.current = event.steps.map((i) => i + 1);
          trial.cycle = event.cycle;
          trial.phase = 'agent';
          trial.deadline = event.deadline ? Date.parse(event.deadline) : undefined;
        }
        break;
      }
      case 'trial.phase': {
        const trial = this.running.get(event.trialId);
        if (trial) trial.phase = event.phase;
        break;
      }
      case 'step.end': {
        this.stepsDone++;
        const trial = this.running.get(event.trialId);
        if (trial) trial.stepsLeft = Math.max(0, trial.stepsLeft - 1);
        break;
      }
      case 'trial.usage': {
        // The metered cost trial.json and the summary count; an agent's own estimate
        // (its usage events) never shows here.
        const trial = this.running.get(event.trialId);
        if (trial) trial.costUsd = event.usage.costUsd;
        break;
      }
      case 'trial.end':
        this.endedUsd += event.usage.costUsd;
        if (this.running.delete(event.trialId) && event.status !== 'cancelled') this.done++;
        break;
    }
  }

  /** Metered cost of this attempt so far: ended trials and running ones. */
  costUsd(): number {
    let total = this.endedUsd;
    for (const trial of this.running.values()) total += trial.costUsd;
    return total;
  }

  /**
   * Time left, from the rate at which this attempt completed steps (concurrency included) and
   * the steps left: those of running trials, and those of trials not started yet at the mean
   * step count of the trials that have. Undefined before the first step completes.
   */
  etaMs(now: number): number | undefined {
    if (this.stepsDone === 0 || this.startedAt === undefined || this.trialsStarted === 0) return undefined;
    const waiting = Math.max(0, this.total - this.done - this.running.size);
    let left = (waiting * this.stepsStarted) / this.trialsStarted;
    for (const trial of this.running.values()) left += trial.stepsLeft;
    return (left * (now - this.startedAt)) / this.stepsDone;
  }
}

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const mm = String(m).padStart(h > 0 ? 2 : 1, '0');
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
}

export function formatCost(usd: number): string {
  return `$${usd.toFixed(usd < 10 ? 3 : 2)}`;
}

/** `agent 0:42/1:00:00`: the phase, the step's elapsed time and its wall-clock limit. */
export function formatPhase(trial: TrialProgress, now: number): string {
  if (trial.stepStartedAt === undefined) return trial.phase;
  const limit =
    trial.deadline === undefined ? '' : `/${formatDuration(trial.deadline - trial.stepStartedAt)}`;
  return `${trial.phase} ${formatDuration(now - trial.stepStartedAt)}${limit}`;
}

/** `step 2/3`, `steps 1-3/3` for a turn over several steps, with the feedback cycle if any. */
export function formatStep(trial: TrialProgress): string {
  const { current, steps } = trial;
  if (current.length === 0) return `step -/${steps}`;
  const first = current[0]!;
  const last = current[current.length - 1]!;
  const which = current.length > 1 ? `steps ${first}-${last}` : `step ${first}`;
  return `${which}/${steps}${trial.cycle > 0 ? ` (feedback ${trial.cycle})` : ''}`;
}
