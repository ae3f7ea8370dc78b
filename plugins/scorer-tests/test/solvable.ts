import { join } from 'node:path';
import type { Task } from '@longhaul/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { scoreStep, taskFromDir } from './harness.js';

interface CaseDetail {
  id: string;
  passed: boolean;
  reason?: string;
}

function failures(detail: unknown): string[] {
  return (detail as { cases: CaseDetail[] }).cases
    .filter((item) => !item.passed)
    .map((item) => `${item.id}: ${item.reason}`);
}

// Cases spend most of their time waiting for the interpreter to start, not on the CPU.
const concurrency = 16;

/**
 * Proves a shipped CLI problem solvable and its steps meaningful: each reference solution passes
 * its own step's cases and every earlier step's (as regression), every step has at least 15 cases
 * split roughly 60 / 30 / 10 over core / functionality / error, and each solution fails the next
 * step, so every step asks for something new.
 */
export function describeSolvable(id: string, stepIds: string[]): void {
  const problem = join(import.meta.dirname, '../../../problems', id);
  let task: Task;

  beforeAll(async () => {
    task = await taskFromDir(problem);
  });

  describe(`problems/${id}`, () => {
    it(`has the steps ${stepIds.join(', ')}`, () => {
      expect(task.steps.map((step) => step.id)).toEqual(stepIds);
    });

    const regressionBefore: number[] = [0];
    stepIds.forEach((_, index) => {
      it(`step ${index + 1}: the reference solution passes every case, regression included`, async () => {
        const { scores, list } = await scoreStep(task, index, task.steps[index]!.solution!, { concurrency });
        expect(failures(list[0]!.detail)).toEqual([]);
        expect(scores).toMatchObject({ strict: 1, iso: 1, core: 1, pass_rate: 1 });
        const core = Number(scores['core.total']);
        const functionality = Number(scores['functionality.total']);
        const error = Number(scores['error.total']);
        const own = core + functionality + error;
        expect(own).toBeGreaterThanOrEqual(15);
        expect(core / own).toBeGreaterThanOrEqual(0.5);
        expect(functionality / own).toBeGreaterThanOrEqual(0.2);
        expect(error).toBeGreaterThanOrEqual(2);
        if (index > 0) expect(scores['regression.total']).toBe(regressionBefore[index]);
        regressionBefore[index + 1] = (regressionBefore[index] ?? 0) + own;
      });
    });

    stepIds.slice(1).forEach((stepId, offset) => {
      it(`step ${offset + 2} (${stepId}) asks for new behaviour: the step ${offset + 1} solution fails it`, async () => {
        const { scores } = await scoreStep(task, offset + 1, task.steps[offset]!.solution!, {
          regression: false,
          concurrency,
        });
        expect(scores.iso).toBe(0);
      });
    });
  });
}
