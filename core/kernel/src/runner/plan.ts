import type { Task, TurnPlan } from '../contracts/index.js';

/** What is wrong with a script's plan for a task; empty when it can run. */
export function planProblems(task: Task, plan: readonly TurnPlan[]): string[] {
  const problems: string[] = [];
  const inRange = (i: number) => Number.isInteger(i) && i >= 0 && i < task.steps.length;
  if (plan.length === 0 && task.steps.length > 0) problems.push('the plan has no turns');
  plan.forEach((turn, t) => {
    const where = `turn ${t + 1}`;
    if (turn.steps.length === 0) problems.push(`${where} works on no step`);
    for (const i of turn.steps)
      if (!inRange(i)) problems.push(`${where} names step index ${i}, out of range`);
    for (const i of turn.scores) {
      if (!turn.steps.includes(i)) problems.push(`${where} scores step index ${i} it does not work on`);
    }
    if (turn.sandbox !== undefined && turn.sandbox !== 'keep' && turn.sandbox !== 'fresh') {
      problems.push(`${where} has sandbox '${String(turn.sandbox)}', expected 'keep' or 'fresh'`);
    } else if (turn.sandbox === 'fresh' && turn.session === 'continue') {
      problems.push(
        `${where} asks for a fresh sandbox but continues the session; a fresh sandbox needs session 'fresh'`,
      );
    }
    if (turn.workspace.action === 'reset') {
      const k = turn.workspace.afterStep;
      if (k !== -1 && !inRange(k)) problems.push(`${where} resets to step index ${k}, out of range`);
      else if (k >= 0 && !task.steps[k]?.solution) {
        problems.push(`${where} resets to the reference after step '${task.steps[k]?.id}', which has none`);
      }
    }
    if (!Number.isInteger(turn.feedbackCycles) || turn.feedbackCycles < 0) {
      problems.push(`${where} has feedbackCycles ${turn.feedbackCycles}, expected an integer >= 0`);
    }
  });
  return problems;
}

/**
 * The first planned turn a trial still has to run, given the steps already complete: every turn
 * up to the last one whose scored steps are all complete is done; later turns run again, from
 * that turn's snapshot.
 */
export function resumePoint(plan: readonly TurnPlan[], complete: ReadonlySet<number>): number {
  let next = 0;
  plan.forEach((turn, t) => {
    if (turn.scores.length > 0 && turn.scores.every((i) => complete.has(i))) next = t + 1;
  });
  return next;
}
