import { readdir } from 'node:fs/promises';
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

export interface SolvableOptions {
  /** Cases scored at once. */
  concurrency?: number;
  /** Time limit of each test. */
  timeout?: number;
}

/** How many cases a step has of its own, from its case files. */
async function caseCount(casesDir: string): Promise<number> {
  let count = 0;
  for (const category of await readdir(casesDir)) {
    count += (await readdir(join(casesDir, category))).filter((name) => name.endsWith('.yaml')).length;
  }
  return count;
}

/**
 * Proves a shipped CLI problem solvable and its steps meaningful: each reference solution passes
 * its own step's cases and every earlier step's (as regression), every step has at least 15 cases
 * split roughly 60 / 30 / 10 over core / functionality / error, and each solution fails the next
 * step, so every step asks for something new.
 */
/**
 * Four cases at a time (the scorer's default): more at once on a 2-core machine makes each
 * interpreter start so slowly that cases hit their own time limits. A step scores a hundred or
 * more processes; a busy machine must not turn that into a failure, hence the generous limit.
 */
export function describeSolvable(
  id: string,
  stepIds: string[],
  { concurrency = 4, timeout = 900_000 }: SolvableOptions = {},
): void {
  const problem = join(import.meta.dirname, '../../../problems', id);
  let task: Task;
  const own: number[] = [];

  beforeAll(async () => {
    // What is tested is the solutions' behaviour, not their speed: each case gets two minutes, so
    // a busy machine starting Python slowly does not turn a pass into a timeout.
    task = { ...(await taskFromDir(problem)), timeouts: { caseMs: 120_000 } };
    for (const step of task.steps) own.push(await caseCount(step.cases!));
  });

  // Steps are scored one after another: with every step at once, a file started forty
  // interpreters together and cases on a 2-core machine hit their own time limits.
  describe(`problems/${id}`, () => {
    it(`has the steps ${stepIds.join(', ')}`, () => {
      expect(task.steps.map((step) => step.id)).toEqual(stepIds);
    });

    stepIds.forEach((_, index) => {
      it(
        `step ${index + 1}: the reference solution passes every case, regression included`,
        async () => {
          const { scores, list } = await scoreStep(task, index, task.steps[index]!.solution!, {
            concurrency,
          });
          expect(failures(list[0]!.detail)).toEqual([]);
          expect(scores).toMatchObject({ strict: 1, iso: 1, core: 1, pass_rate: 1 });
          const core = Number(scores['core.total']);
          const functionality = Number(scores['functionality.total']);
          const error = Number(scores['error.total']);
          const total = core + functionality + error;
          expect(total).toBe(own[index]);
          expect(total).toBeGreaterThanOrEqual(15);
          expect(core / total).toBeGreaterThanOrEqual(0.5);
          expect(functionality / total).toBeGreaterThanOrEqual(0.2);
          expect(error).toBeGreaterThanOrEqual(2);
          const earlier = own.slice(0, index).reduce((sum, count) => sum + count, 0);
          expect(scores['regression.total'] ?? 0).toBe(earlier);
        },
        timeout,
      );
    });

    stepIds.slice(1).forEach((stepId, offset) => {
      it(
        `step ${offset + 2} (${stepId}) asks for new behaviour: the step ${offset + 1} solution fails it`,
        async () => {
          const { scores } = await scoreStep(task, offset + 1, task.steps[offset]!.solution!, {
            regression: false,
            concurrency,
          });
          expect(scores.iso).toBe(0);
        },
        timeout,
      );
    });
  });
}
