import { readdir, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { type AnyCase, type CaseCategory, caseCategories, readCase, type Step } from '@longhaul/core';

export type ScoredCategory = CaseCategory | 'regression';

/** A case file of a step, CLI or HTTP (`kind`). */
export type StepCase = AnyCase & {
  /** `<step-id>/<category>/<name>`, unique within a task. */
  id: string;
  name: string;
  step: Step;
  /** The category the case has in its own step. */
  category: CaseCategory;
};

/** A case with the category it counts under for the step being scored. */
export type LoadedCase = StepCase & { scoredAs: ScoredCategory };

/** The cases of one step, in category order (core, functionality, error) and then by name. */
export async function stepCases(step: Step): Promise<StepCase[]> {
  if (!step.cases) return [];
  // A source checks this at load; a step whose cases are not a folder must not pass with no tests.
  const info = await stat(step.cases).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new Error(
      `the cases of step '${step.id}' are not a folder: ${step.cases} ${info ? 'is a file' : 'does not exist'}`,
    );
  }
  const cases: StepCase[] = [];
  for (const category of caseCategories) {
    const dir = join(step.cases, category);
    const files = await readdir(dir).catch(() => [] as string[]);
    for (const file of files.filter((name) => /\.ya?ml$/.test(name)).sort()) {
      const name = basename(file, extname(file));
      cases.push({
        id: `${step.id}/${category}/${name}`,
        name,
        step,
        category,
        ...(await readCase(join(dir, file))),
      });
    }
  }
  return cases;
}

/**
 * Each step's cases, read and validated once: scoring step k runs the cases of every step before
 * it again as regression, and would otherwise read them k times over a trial.
 */
export class CaseCache {
  private readonly byStep = new Map<string, Promise<StepCase[]>>();

  get(step: Step): Promise<StepCase[]> {
    const key = `${step.index}\u0000${step.cases ?? ''}`;
    let cases = this.byStep.get(key);
    if (!cases) {
      cases = stepCases(step);
      this.byStep.set(key, cases);
      // A folder that failed to read is read again next time, and fails with its own error.
      cases.catch(() => this.byStep.delete(key));
    }
    return cases;
  }
}

/** The step's own cases, then (as regression) every case of the steps before it. */
export async function casesFor(
  steps: readonly Step[],
  step: Step,
  regression: boolean,
  cache = new CaseCache(),
): Promise<LoadedCase[]> {
  const own = (await cache.get(step)).map((item) => ({ ...item, scoredAs: item.category as ScoredCategory }));
  if (!regression) return own;
  const earlier: LoadedCase[] = [];
  for (const previous of steps.filter((candidate) => candidate.index < step.index)) {
    earlier.push(
      ...(await cache.get(previous)).map((item) => ({ ...item, scoredAs: 'regression' as const })),
    );
  }
  return [...own, ...earlier];
}
