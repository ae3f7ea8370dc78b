import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ClassifiedError, type Step } from '@longhaul/core';
import { z } from 'zod';

/** A PR's hidden tests as the swe-steps source writes them: `<cases>/suite.json`, `<cases>/files/`. */
export const suiteSchema = z.strictObject({
  pr: z.number().int(),
  /** The PR's runnable test modules, as they are after it: hidden from the agent, passed to the runner. */
  testFiles: z.array(z.string().min(1)),
  /**
   * The PR's other test files (fixtures, data, conftest, helpers): hidden and written back with
   * the modules, never passed to the runner as arguments.
   */
  supportFiles: z.array(z.string().min(1)).default([]),
  /**
   * The other test files of this PR's gold tree that the chain does not hold alike (another step
   * hides them, a later commit changes or removes them), as they are after this PR: written
   * before its tests run so that whatever they import or read is there as the PR left it,
   * whichever setting the agent worked in.
   */
  restore: z.array(z.string().min(1)).default([]),
  /**
   * The PR's test modules a later commit of the chain changes or removes: on the final state (PRD)
   * their tests stand as that commit left them, so the PR's version of them is not judged there.
   */
  changedLater: z.array(z.string().min(1)).default([]),
  /** pytest node ids that the PR makes pass. */
  f2p: z.array(z.string().min(1)),
  /** pytest node ids that pass before and after the PR. */
  p2p: z.array(z.string().min(1)),
  /** How the repository's tests run; test files are appended as arguments. */
  command: z.array(z.string().min(1)).min(1),
  /**
   * The dataset's test-file globs: every such file of the PR's gold tree (and every conftest.py)
   * is put back before the run, and the agent's others removed. Older suites: conftest.py only.
   */
  testRules: z.array(z.string().min(1)).default([]),
  /** Where mining validated the tests: the scorer records whether its own run matched. */
  validatedWith: z
    .strictObject({
      python: z.string(),
      pytest: z.string(),
      executable: z.string(),
      image: z.string().optional(),
    })
    .optional(),
});
export type Suite = z.output<typeof suiteSchema>;

export interface StepSuite extends Suite {
  step: Step;
  /** Host directory holding the gold test files (`files/` of the step's cases): testFiles, supportFiles and restore. */
  filesDir: string;
}

/** Reads a step's suite.json; a missing or malformed one is a scorer fault naming the file. */
export async function readSuite(step: Step): Promise<StepSuite> {
  if (!step.cases) throw new ClassifiedError('scorer', `step ${step.id} has no cases directory (suite.json)`);
  const file = join(step.cases, 'suite.json');
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new ClassifiedError('scorer', `${file}: ${(error as Error).message}`);
  }
  const parsed = suiteSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ClassifiedError('scorer', `${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return { ...parsed.data, step, filesDir: join(step.cases, 'files') };
}

/** The file part of a pytest node id (`tests/test_x.py::Class::test_y[1]` → `tests/test_x.py`). */
export const fileOf = (id: string) => id.split('::')[0]!;
