import { join } from 'node:path';
import type { Task } from '@longhaul/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { scoreStep, taskFromDir } from './harness.js';

// The shipped HTTP problem must be solvable: each reference solution passes its own step's cases
// and, as regression, every case of the steps before it.
const problem = join(import.meta.dirname, '../../../problems/linkshelf');
let task: Task;

interface CaseDetail {
  id: string;
  category: string;
  passed: boolean;
  reason?: string;
}

function failures(detail: unknown): string[] {
  return (detail as { cases: CaseDetail[] }).cases
    .filter((item) => !item.passed)
    .map((item) => `${item.id}: ${item.reason}`);
}

beforeAll(async () => {
  task = await taskFromDir(problem);
});

describe('problems/linkshelf', () => {
  it('has four steps', () => {
    expect(task.steps.map((step) => step.id)).toEqual(
      ['links', 'queries', 'persistence', 'revisions'].slice(0, task.steps.length),
    );
  });

  for (const index of [0, 1, 2, 3]) {
    it(`step ${index + 1}: the reference solution passes every case, regression included`, {
      timeout: 300_000,
    }, async () => {
      const { scores, list } = await scoreStep(task, index, task.steps[index]!.solution!);
      expect(failures(list[0]!.detail)).toEqual([]);
      expect(scores).toMatchObject({ strict: 1, iso: 1, core: 1, pass_rate: 1 });
      const own =
        Number(scores['core.total']) + Number(scores['functionality.total']) + Number(scores['error.total']);
      // Roughly 60 / 30 / 10 over the step's own cases.
      expect(Number(scores['core.total']) / own).toBeGreaterThanOrEqual(0.45);
      expect(Number(scores['error.total'])).toBeGreaterThanOrEqual(1);
      expect(Number(scores['functionality.total'])).toBeGreaterThanOrEqual(2);
    });
  }

  // Three steps of HTTP cases, each starting servers: minutes on a busy machine.
  // That an earlier solution keeps the regression of the steps before is its own step's test above.
  it('asks for new behaviour at every step: an earlier solution fails the next step', {
    timeout: 600_000,
  }, async () => {
    for (const index of [1, 2, 3]) {
      const { scores } = await scoreStep(task, index, task.steps[index - 1]!.solution!, {
        regression: false,
      });
      expect(scores.iso).toBe(0);
    }
  });
});
