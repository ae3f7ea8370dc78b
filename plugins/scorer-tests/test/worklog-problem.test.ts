import { join } from 'node:path';
import type { Task } from '@longhaul/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { scoreStep, taskFromDir } from './harness.js';

// The shipped problem must be solvable: each reference solution passes its own step's cases and,
// as regression, every case of the steps before it.
const problem = join(import.meta.dirname, '../../../problems/worklog');
let task: Task;

beforeAll(async () => {
  task = await taskFromDir(problem);
});

describe('problems/worklog', () => {
  it('has four steps with cases in every category, about 60/30/10', async () => {
    expect(task.steps.map((step) => step.id)).toEqual([
      'csv-summary',
      'jsonl-and-filters',
      'store-and-formats',
      'budgets',
    ]);
  });

  for (const index of [0, 1, 2, 3]) {
    it(`step ${index + 1}: the reference solution passes every case, regression included`, async () => {
      const step = task.steps[index]!;
      const { scores, list } = await scoreStep(task, index, step.solution!);
      const failed = (list[0]!.detail as { cases: { id: string; passed: boolean; reason?: string }[] }).cases
        .filter((item) => !item.passed)
        .map((item) => `${item.id}: ${item.reason}`);
      expect(failed).toEqual([]);
      expect(scores).toMatchObject({ strict: 1, iso: 1, core: 1, pass_rate: 1 });
      expect(scores['core.total']).toBeGreaterThanOrEqual(10);
      expect(scores['functionality.total']).toBeGreaterThanOrEqual(5);
      expect(scores['error.total']).toBeGreaterThanOrEqual(2);
      expect(scores['regression.total']).toBe(21 * index);
    }, 300_000);
  }

  // Each step asks for new behaviour: the solution of the step before fails it. (That it passes
  // the earlier steps' cases is the previous step's test above: its own cases and regression.)
  for (const index of [1, 2, 3]) {
    it(`step ${index + 1}: the solution of step ${index} fails it`, async () => {
      const { scores } = await scoreStep(task, index, task.steps[index - 1]!.solution!, {
        regression: false,
      });
      expect(scores).toMatchObject({ strict: 0, iso: 0, core: 0 });
    }, 300_000);
  }
});
