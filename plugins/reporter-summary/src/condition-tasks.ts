import type { ConditionSummary } from './summary.js';

/**
 * A note naming the tasks behind each condition when they are not the same for all (a `--limit`
 * that does not divide evenly, a condition whose trials are missing): its rates are then over
 * other tasks than its neighbours', which the table alone does not show. Undefined when they agree.
 */
export function differingTasksNote(
  conditions: Pick<ConditionSummary, 'condition' | 'tasks'>[],
): string | undefined {
  const sets = conditions.map((condition) => [...condition.tasks].sort().join(', '));
  if (new Set(sets).size <= 1) return undefined;
  const lines = conditions.map((condition) => `  ${condition.condition}: ${condition.tasks.join(', ')}`);
  return ['the conditions ran different tasks, so their rates are not over the same ones:', ...lines].join(
    '\n',
  );
}
