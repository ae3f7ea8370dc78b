import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  parseYaml,
  readDirectoryFiles,
  type Score,
  type Step,
  type StepScoreContext,
  type Task,
  type TrialSpec,
} from '@longhaul/core';
import { FakeSnapshotStore, testFolder } from '@longhaul/testkit';
import plugin, { TestsScorer } from '../src/index.js';
import { TempSandbox } from './temp-sandbox.js';

/**
 * A task read straight from a native task directory (task.yaml and steps/<nn>-<slug>/), without
 * the source plugin: scorers never depend on another plugin.
 */
export async function taskFromDir(root: string): Promise<Task> {
  const file = parseYaml(await readFile(join(root, 'task.yaml'), 'utf8'), 'task.yaml').value as {
    id: string;
    title: string;
    entrypoint: string;
    language: string;
    timeouts?: { caseMs?: number };
  };
  const stepDirs = (await readdir(join(root, 'steps'))).sort();
  const steps: Step[] = stepDirs.map((name, index) => ({
    id: name.replace(/^\d+-/, ''),
    index,
    prompt: '',
    cases: join(root, 'steps', name, 'cases'),
    solution: join(root, 'steps', name, 'solution'),
    metadata: {},
  }));
  return {
    id: file.id,
    title: file.title,
    source: 'test',
    root,
    entrypoint: file.entrypoint,
    language: file.language,
    environment: {},
    steps,
    timeouts: { caseMs: file.timeouts?.caseMs ?? 10_000 },
    hash: 'test',
    metadata: {},
  };
}

export interface Scored {
  scores: Record<string, number | boolean | null>;
  list: Score[];
  outDir: string;
}

/** A step score context over `workspace` (a host directory) as the result of step `index`. */
export async function stepContext(task: Task, index: number, workspace: string): Promise<StepScoreContext> {
  const snapshots = new FakeSnapshotStore();
  return {
    task,
    step: task.steps[index]!,
    trial: { id: 'trial' } as TrialSpec,
    snapshot: await snapshots.put(await readDirectoryFiles(workspace)),
    snapshots,
    openSandbox: (from) => TempSandbox.create(snapshots, from),
    outDir: await testFolder('longhaul-tests-out-'),
    status: 'ok',
    signal: new AbortController().signal,
  };
}

/** Scores `workspace` as the result of step `index` of `task`. */
export async function scoreStep(
  task: Task,
  index: number,
  workspace: string,
  options: { regression?: boolean; concurrency?: number } = {},
): Promise<Scored> {
  const context = await stepContext(task, index, workspace);
  const scorer = new TestsScorer(plugin.options.parse(options));
  const list = await scorer.score(context);
  return {
    scores: Object.fromEntries(list.map((score) => [score.metric, score.value])),
    list,
    outDir: context.outDir,
  };
}

/** A task written from `files` (paths relative to the task directory) into a temp directory removed after the test. */
export async function taskWith(files: Record<string, string>): Promise<Task> {
  const root = await testFolder('longhaul-task-');
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return taskFromDir(root);
}
