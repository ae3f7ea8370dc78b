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
  /** The trial's metered cost so far (the gateway's), as trial.json will hold it. */
  costUsd: number;
}

/** What the progress views show, folded from run events. */
export class ProgressState {
  readonly running = new Map<string, TrialProgress>();
  total = 0;
  done = 0;

  apply(event: StampedRunEvent): void {
    switch (event.type) {
      case 'run.start':
        this.total = event.trials;
        break;
      case 'trial.start':
        this.running.set(event.trialId, {
          id: event.trialId,
          task: event.task,
          condition: event.condition,
          steps: event.steps,
          current: [],
          cycle: 0,
          startedAt: Date.parse(event.ts),
          costUsd: 0,
        });
        break;
      case 'turn.start': {
        const trial = this.running.get(event.trialId);
        if (trial) {
          trial.current = event.steps.map((i) => i + 1);
          trial.cycle = event.cycle;
        }
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
        if (this.running.delete(event.trialId) && event.status !== 'cancelled') this.done++;
        break;
    }
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

/** `step 2/3`, `steps 1-3/3` for a turn over several steps, with the feedback cycle if any. */
export function formatStep(trial: TrialProgress): string {
  const { current, steps } = trial;
  if (current.length === 0) return `step -/${steps}`;
  const first = current[0]!;
  const last = current[current.length - 1]!;
  const which = current.length > 1 ? `steps ${first}-${last}` : `step ${first}`;
  return `${which}/${steps}${trial.cycle > 0 ? ` (feedback ${trial.cycle})` : ''}`;
}
