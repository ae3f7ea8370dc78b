import type { Script, Task, TurnPlan } from '@longhaul/core';
import { expect } from 'vitest';
import { type Check, describeChecks, isJsonValue } from './checks.js';
import { sampleTasks } from './sample-task.js';

export interface ScriptContext {
  script: () => Script;
  tasks: Task[];
}

function eachPlan(context: ScriptContext, check: (plan: TurnPlan[], task: Task) => void): void {
  for (const task of context.tasks) check(context.script().plan(structuredClone(task)), task);
}

export const scriptChecks: Check<ScriptContext>[] = [
  {
    name: 'plan is a pure function of the task: same input, same plan, task left unchanged',
    run: async (context) => {
      for (const task of context.tasks) {
        const before = JSON.stringify(task);
        const first = context.script().plan(task);
        expect(JSON.stringify(task), 'plan changed the task it was given').toBe(before);
        expect(context.script().plan(structuredClone(task))).toEqual(first);
        expect(context.script().plan(task)).toEqual(first);
        expect(isJsonValue(first), 'a plan must be plain JSON data').toBe(true);
      }
    },
  },
  {
    name: 'every step is scored exactly once, in order',
    run: async (context) =>
      eachPlan(context, (plan, task) => {
        const scored = plan.flatMap((turn) => turn.scores);
        expect(scored, `task ${task.id}`).toEqual(task.steps.map((step) => step.index));
      }),
  },
  {
    name: 'the steps a turn scores are among the steps it works on',
    run: async (context) =>
      eachPlan(context, (plan) => {
        for (const [i, turn] of plan.entries()) {
          for (const step of turn.scores) {
            expect(turn.steps, `turn ${i} scores step ${step} it does not work on`).toContain(step);
          }
        }
      }),
  },
  {
    name: 'the first turn starts a fresh session',
    run: async (context) =>
      eachPlan(context, (plan, task) => {
        if (task.steps.length > 0) expect(plan[0]?.session, `task ${task.id}`).toBe('fresh');
      }),
  },
  {
    name: 'turns have a prompt, valid step indexes and a whole number of feedback cycles',
    run: async (context) =>
      eachPlan(context, (plan, task) => {
        expect(plan.length > 0).toBe(task.steps.length > 0);
        for (const [i, turn] of plan.entries()) {
          expect(turn.prompt.trim(), `turn ${i} of ${task.id} has an empty prompt`).not.toBe('');
          expect(['fresh', 'continue']).toContain(turn.session);
          expect(turn.steps.length, `turn ${i} works on no step`).toBeGreaterThan(0);
          for (const step of turn.steps) {
            expect(Number.isInteger(step) && step >= 0 && step < task.steps.length).toBe(true);
          }
          expect(Number.isInteger(turn.feedbackCycles) && turn.feedbackCycles >= 0).toBe(true);
        }
      }),
  },
  {
    name: 'a workspace reset never goes past the steps the turn works on (that would hand over the answer)',
    run: async (context) =>
      eachPlan(context, (plan) => {
        for (const [i, turn] of plan.entries()) {
          if (turn.workspace.action === 'carry') continue;
          expect(turn.workspace.action).toBe('reset');
          const { afterStep } = turn.workspace;
          expect(Number.isInteger(afterStep) && afterStep >= -1).toBe(true);
          expect(afterStep, `turn ${i} resets to after step ${afterStep}`).toBeLessThan(
            Math.min(...turn.steps),
          );
        }
      }),
  },
];

export interface DescribeScriptOptions {
  /** Tasks to plan (default: sample tasks of 1, 3 and 5 steps, the last with a full spec). */
  tasks?: Task[];
}

/** The script conformance suite; `factory` is called for every plan so state cannot leak between them. */
export function describeScript(
  name: string,
  factory: () => Script,
  options: DescribeScriptOptions = {},
): void {
  describeChecks(`script conformance: ${name}`, scriptChecks, () => ({
    script: factory,
    tasks: options.tasks ?? sampleTasks(),
  }));
}
