import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type CaseCategory, caseCategories, closest, readCase, type Step } from '@longhaul/core';
import type { IssueList } from './issues.js';
import { renderSpec } from './spec-text.js';
import { stepFileSchema } from './task-file.js';

const stepDirPattern = /^(\d+)-([a-z0-9][a-z0-9._-]*)$/;
const stepEntries = ['spec.md', 'step.yaml', 'cases', 'solution'];

export interface StepContext {
  entrypoint: string;
  /** Component ids of components.yaml, to check what a step discloses. */
  components?: Set<string>;
  issues: IssueList;
}

async function isDir(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** Loads `steps/<nn>-<slug>/`, checking that the numbers run 1, 2, 3… without gaps. */
export async function loadSteps(stepsDir: string, ctx: StepContext): Promise<Step[]> {
  if (!(await isDir(stepsDir))) {
    ctx.issues.add({ file: stepsDir, message: 'missing steps/ directory (one steps/<nn>-<slug>/ per step)' });
    return [];
  }
  const numbered: { number: number; slug: string; dir: string }[] = [];
  for (const entry of (await readdir(stepsDir, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    if (entry.name.startsWith('.')) continue;
    const match = stepDirPattern.exec(entry.name);
    if (!entry.isDirectory() || !match) {
      ctx.issues.add({
        file: join(stepsDir, entry.name),
        message: 'expected a step directory named <nn>-<slug> (e.g. 01-parse; slug in lower case)',
      });
      continue;
    }
    numbered.push({ number: Number(match[1]), slug: match[2]!, dir: join(stepsDir, entry.name) });
  }
  numbered.sort((a, b) => a.number - b.number);
  numbered.forEach((step, position) => {
    if (step.number !== position + 1) {
      ctx.issues.add({
        file: step.dir,
        message: `steps must be numbered 1, 2, 3… without gaps or repeats: expected step ${position + 1}, found ${step.number}`,
      });
    }
  });
  if (numbered.length === 0) ctx.issues.add({ file: stepsDir, message: 'a task needs at least one step' });
  const steps: Step[] = [];
  for (const [index, step] of numbered.entries()) {
    const loaded = await loadStep(step.dir, step.slug, index, ctx);
    if (loaded) steps.push(loaded);
  }
  return steps;
}

async function loadStep(
  dir: string,
  slug: string,
  index: number,
  ctx: StepContext,
): Promise<Step | undefined> {
  const entries = await readdir(dir);
  for (const name of entries) {
    if (!stepEntries.includes(name) && !name.startsWith('.')) {
      ctx.issues.add({
        file: join(dir, name),
        message: `unexpected entry in a step directory (expected ${stepEntries.join(', ')})`,
        suggestion: closest(name, stepEntries),
      });
    }
  }
  const specFile = join(dir, 'spec.md');
  const spec = await readFile(specFile, 'utf8').catch(() => undefined);
  if (spec === undefined)
    ctx.issues.add({ file: specFile, message: 'missing spec.md (what the agent is asked to do)' });
  const stepFile = entries.includes('step.yaml')
    ? await ctx.issues.readValidated(join(dir, 'step.yaml'), stepFileSchema)
    : undefined;
  const discloses = stepFile?.value.discloses;
  discloses?.forEach((item, position) => {
    if (ctx.components?.has(item.component)) return;
    ctx.issues.add(
      stepFile!.yaml.issue(
        ['discloses', position, 'component'],
        ctx.components
          ? `unknown component '${item.component}'`
          : 'discloses components, but the task has no components.yaml',
        ctx.components ? closest(item.component, ctx.components) : undefined,
      ),
    );
  });
  const casesDir = join(dir, 'cases');
  const hasCases = await isDir(casesDir);
  for (const name of ['cases', 'solution']) {
    if (entries.includes(name) && !(await isDir(join(dir, name)))) {
      ctx.issues.add({
        file: join(dir, name),
        message: `${name} must be a directory (${name === 'cases' ? 'cases/<category>/<case>.yaml' : 'the reference workspace after this step'}), not a file`,
      });
    }
  }
  const caseCounts = hasCases ? await checkCases(casesDir, ctx.issues) : {};
  if (spec === undefined) return undefined;
  return {
    id: slug,
    index,
    title: stepFile?.value.title,
    prompt: renderSpec(spec, specFile, { entrypoint: ctx.entrypoint }, ctx.issues),
    solution: (await isDir(join(dir, 'solution'))) ? join(dir, 'solution') : undefined,
    cases: hasCases ? casesDir : undefined,
    discloses,
    phase: stepFile?.value.phase,
    metadata: { ...stepFile?.value.metadata, cases: caseCounts },
  };
}

/** Validates `cases/<category>/<case>.yaml`; returns the number of cases per category. */
async function checkCases(
  casesDir: string,
  issues: IssueList,
): Promise<Partial<Record<CaseCategory, number>>> {
  const counts: Partial<Record<CaseCategory, number>> = {};
  for (const category of (await readdir(casesDir, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const categoryDir = join(casesDir, category.name);
    if (!category.isDirectory() || !(caseCategories as readonly string[]).includes(category.name)) {
      issues.add({
        file: categoryDir,
        message: `unknown case category '${category.name}' (expected a directory named ${caseCategories.join(', ')})`,
        suggestion: closest(category.name, caseCategories),
      });
      continue;
    }
    for (const entry of await readdir(categoryDir, { withFileTypes: true })) {
      const file = join(categoryDir, entry.name);
      if (!entry.isFile() || !/\.ya?ml$/.test(entry.name)) {
        issues.add({ file, message: 'expected a case file <name>.yaml' });
        continue;
      }
      if (await issues.collect(() => readCase(file))) {
        counts[category.name as CaseCategory] = (counts[category.name as CaseCategory] ?? 0) + 1;
      }
    }
  }
  return counts;
}
