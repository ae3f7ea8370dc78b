import type { Task } from '../contracts/task.js';
import type { Condition, Limits, TrialSpec } from '../contracts/trial.js';
import type { ExperimentConfig, LimitsConfig } from './experiment-schema.js';

export function limitsFromConfig(limits: LimitsConfig): Limits {
  return {
    turnMs: Math.round(limits.turnSeconds * 1000),
    stepMs: Math.round(limits.stepSeconds * 1000),
    turnsPerStep: limits.turnsPerStep,
    trialUsd: limits.trialUsd,
    onError: limits.onError,
  };
}

/** Conditions: harness × script × memory × environment, in that nesting order. */
export function expandConditions(config: ExperimentConfig): Condition[] {
  const withEnvironment = config.environment.length > 1;
  const conditions: Condition[] = [];
  for (const harness of config.harness) {
    for (const script of config.script) {
      for (const memory of config.memory) {
        for (const environment of config.environment) {
          const labels = [harness.label, script.label, memory.label];
          if (withEnvironment) labels.push(environment.label);
          conditions.push({ key: labels.join('/'), harness, environment, script, memory });
        }
      }
    }
  }
  return conditions;
}

export function trialId(
  task: string,
  condition: Condition,
  repeat: number,
  withEnvironment: boolean,
): string {
  const parts = [task, condition.harness.label, condition.script.label, condition.memory.label];
  if (withEnvironment) parts.push(condition.environment.label);
  return `${parts.join('.')}.r${repeat}`.replace(/[^A-Za-z0-9._-]/g, '-');
}

/**
 * Trials: every task under every condition, `repeats` times (repeat numbers start at 1). Run id
 * and run directory stay empty until a run assigns them.
 */
export function expandTrials(config: ExperimentConfig, tasks: Task[], conditions: Condition[]): TrialSpec[] {
  const withEnvironment = config.environment.length > 1;
  const limits = limitsFromConfig(config.limits);
  const trials: TrialSpec[] = [];
  for (const task of tasks) {
    for (const condition of conditions) {
      for (let repeat = 1; repeat <= config.repeats; repeat++) {
        trials.push({
          id: trialId(task.id, condition, repeat, withEnvironment),
          runId: '',
          runDir: '',
          task,
          condition,
          repeat,
          scorers: config.scorers,
          limits,
          plugins: config.plugins,
          ...(config.models === undefined ? {} : { models: config.models }),
        });
      }
    }
  }
  return trials;
}

/**
 * The first `limit` trials of the plan taken in turn from each condition (`--limit N`), so every
 * condition gets ⌊N/k⌋ or ⌈N/k⌉ of them, each in the plan's order of tasks and repeats; a plain
 * prefix of the task-major plan would give the first conditions every repeat of a task first.
 * The trials keep their plan order.
 */
export function limitTrials(trials: TrialSpec[], limit: number | undefined): TrialSpec[] {
  if (limit === undefined || limit >= trials.length) return trials;
  const queues = new Map<string, TrialSpec[]>();
  for (const trial of trials)
    queues.set(trial.condition.key, [...(queues.get(trial.condition.key) ?? []), trial]);
  const taken = new Set<TrialSpec>();
  for (let round = 0; taken.size < limit; round++)
    for (const queue of queues.values()) {
      const trial = queue[round];
      if (trial && taken.size < limit) taken.add(trial);
    }
  return trials.filter((trial) => taken.has(trial));
}
