import { readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Component, Task } from '@longhaul/core';
import type { IssueList } from './issues.js';
import { loadSteps } from './load-steps.js';
import { renderSpec } from './spec-text.js';
import { componentsFileSchema, taskFileSchema } from './task-file.js';
import { hashTask } from './task-hash.js';

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

/** Loads one task directory; problems go into `issues` and the result is undefined. */
export async function loadTask(root: string, issues: IssueList): Promise<Task | undefined> {
  const before = issues.issues.length;
  const taskFile = join(root, 'task.yaml');
  if (!(await exists(taskFile))) {
    issues.add({ file: taskFile, message: 'missing task.yaml (every task directory needs one)' });
    return undefined;
  }
  const task = await issues.readValidated(taskFile, taskFileSchema);
  if (task && task.value.id !== basename(root)) {
    issues.add(task.yaml.issue(['id'], `task id must equal its directory name '${basename(root)}'`));
  }
  let components: Component[] | undefined;
  const componentsFile = join(root, 'components.yaml');
  if (await exists(componentsFile)) {
    components = (await issues.readValidated(componentsFile, componentsFileSchema))?.value;
  }
  const steps = await loadSteps(join(root, 'steps'), {
    entrypoint: task?.value.entrypoint ?? '',
    components: components ? new Set(components.map((component) => component.id)) : undefined,
    issues,
  });
  const fullSpecFile = join(root, 'full-spec.md');
  const fullSpecText = await readFile(fullSpecFile, 'utf8').catch(() => undefined);
  const fullSpec =
    fullSpecText === undefined
      ? undefined
      : renderSpec(fullSpecText, fullSpecFile, { entrypoint: task?.value.entrypoint ?? '' }, issues);
  if (!task || issues.issues.length > before) return undefined;
  const { environment, ...file } = task.value;
  const seed = join(root, 'seed');
  return {
    id: file.id,
    title: file.title,
    description: file.description,
    source: 'longhaul',
    root,
    entrypoint: file.entrypoint,
    language: file.language,
    environment: {
      ...environment,
      dockerfile: environment.dockerfile ? resolve(root, environment.dockerfile) : undefined,
    },
    seed: (await exists(seed)) ? seed : undefined,
    steps,
    components,
    fullSpec,
    timeouts: file.timeouts,
    hash: await hashTask(root),
    metadata: file.metadata,
  };
}
