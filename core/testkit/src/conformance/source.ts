import { isAbsolute } from 'node:path';
import type { Source, SourceContext, Task } from '@longhaul/core';
import { expect } from 'vitest';
import { type Check, describeChecks } from './checks.js';

export interface SourceCheckContext {
  source: () => Source;
  context: SourceContext;
  minTasks: number;
}

async function eachTask(context: SourceCheckContext, check: (task: Task) => void): Promise<Task[]> {
  const tasks = await context.source().load(context.context);
  for (const task of tasks) check(task);
  return tasks;
}

export const sourceChecks: Check<SourceCheckContext>[] = [
  {
    name: 'loads tasks with unique, non-empty ids',
    run: async (context) => {
      const tasks = await context.source().load(context.context);
      expect(tasks.length).toBeGreaterThanOrEqual(context.minTasks);
      const ids = tasks.map((task) => task.id);
      for (const id of ids)
        expect(typeof id === 'string' && id.trim() !== '', 'a task id is empty').toBe(true);
      expect(new Set(ids).size, `duplicate task ids in ${ids.join(', ')}`).toBe(ids.length);
    },
  },
  {
    name: 'steps are indexed 0..n-1 with unique ids and non-empty prompts',
    run: async (context) => {
      await eachTask(context, (task) => {
        expect(task.steps.length, `task ${task.id} has no steps`).toBeGreaterThan(0);
        expect(task.steps.map((step) => step.index)).toEqual(task.steps.map((_, i) => i));
        const ids = task.steps.map((step) => step.id);
        expect(new Set(ids).size, `task ${task.id}: duplicate step ids`).toBe(ids.length);
        for (const step of task.steps) {
          expect(step.prompt.trim(), `task ${task.id} step ${step.id} has an empty prompt`).not.toBe('');
        }
      });
    },
  },
  {
    name: 'tasks are plain JSON (they travel inside trial specs)',
    run: async (context) => {
      await eachTask(context, (task) => {
        expect(JSON.parse(JSON.stringify(task)), `task ${task.id}`).toEqual(task);
      });
    },
  },
  {
    name: 'paths are absolute and the required fields are set',
    run: async (context) => {
      await eachTask(context, (task) => {
        const where = `task ${task.id}`;
        for (const [field, path] of [
          ['root', task.root],
          ['seed', task.seed],
          ...task.steps.flatMap((step) => [
            [`steps[${step.index}].solution`, step.solution],
            [`steps[${step.index}].cases`, step.cases],
          ]),
        ] as [string, string | undefined][]) {
          if (field === 'root' || path !== undefined) {
            expect(isAbsolute(path ?? ''), `${where}: ${field} "${path}" is not absolute`).toBe(true);
          }
        }
        expect(task.source.trim(), `${where}: source`).not.toBe('');
        expect(task.hash.trim(), `${where}: hash`).not.toBe('');
        expect(typeof task.entrypoint, `${where}: entrypoint`).toBe('string');
        expect(task.timeouts.caseMs, `${where}: timeouts.caseMs`).toBeGreaterThan(0);
      });
    },
  },
  {
    name: 'loading twice gives the same tasks',
    run: async (context) => {
      const first = await context.source().load(context.context);
      expect(await context.source().load(context.context)).toEqual(first);
    },
  },
];

export interface DescribeSourceOptions {
  /** At least this many tasks must load (default 1). */
  minTasks?: number;
}

/** The source conformance suite. */
export function describeSource(
  name: string,
  factory: () => Source,
  context: SourceContext,
  options: DescribeSourceOptions = {},
): void {
  describeChecks(`source conformance: ${name}`, sourceChecks, () => ({
    source: factory,
    context,
    minTasks: options.minTasks ?? 1,
  }));
}
