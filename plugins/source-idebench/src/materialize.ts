import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { regularFiles } from '@longhaul/core';
import { stringify } from 'yaml';

const run = promisify(execFile);

/** Files of a dataset that never enter the agent's workspace: graders and tasks. */
export const hiddenFromAgent = new Set(['tasks', 'run_tests.sh', 'run-tests.sh']);

/** Caches and VCS data that are not part of a dataset. */
const skipped = new Set(['.git', '__pycache__', 'node_modules', '.pytest_cache', '.venv']);

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Writes `dir` once: built in a temp sibling and renamed, so a half-made directory is never used. */
async function once(dir: string, build: (tmp: string) => Promise<void>): Promise<void> {
  if (await exists(dir)) return;
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  await mkdir(tmp, { recursive: true });
  try {
    await build(tmp);
    await rename(tmp, dir).catch(async (error) => {
      if (!(await exists(dir))) throw error;
    });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** The agent's starting workspace: the dataset minus its tasks and test runners. */
export async function materializeSeed(dataset: string, dir: string): Promise<void> {
  await copyDataset(dataset, dir, hiddenFromAgent);
}

/**
 * The context the dataset's Dockerfile is built from: the dataset minus `tasks/`, so no hidden
 * test or golden patch enters the image (whose WORKDIR the agent's workspace starts from). The
 * runners stay: upstream's Dockerfile makes `run_tests.sh` executable.
 */
export async function materializeImageContext(dataset: string, dir: string): Promise<void> {
  await copyDataset(dataset, dir, new Set(['tasks']));
}

async function copyDataset(dataset: string, dir: string, left: ReadonlySet<string>): Promise<void> {
  await once(dir, async (tmp) => {
    for (const entry of await readdir(dataset)) {
      if (left.has(entry) || skipped.has(entry)) continue;
      await cp(join(dataset, entry), join(tmp, entry), {
        recursive: true,
        filter: (source) => !source.split('/').some((part) => skipped.has(part)),
      });
    }
  });
}

/** The reference solution: the seed with the task's golden diff applied (`git apply`, as IDE-Bench's oracle). */
export async function materializeSolution(seed: string, diff: string, dir: string): Promise<void> {
  await once(dir, async (tmp) => {
    await cp(seed, tmp, { recursive: true });
    try {
      await run('git', ['apply', '--ignore-whitespace', '--whitespace=nowarn', diff], { cwd: tmp });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr?.trim();
      throw new Error(`git apply ${diff} failed: ${stderr || (error as Error).message}`);
    }
  });
}

/**
 * The hidden test as a CLI case of the `tests` scorer: the runner and the task's test files are
 * written into the scorer's own sandbox, then `run_tests.sh <task>` must exit 0.
 */
export async function materializeCase(
  dataset: string,
  taskId: string,
  timeoutMs: number,
  dir: string,
): Promise<void> {
  await once(dir, async (tmp) => {
    const files: Record<string, string> = {};
    for (const runner of ['run_tests.sh', 'run-tests.sh'])
      if (await exists(join(dataset, runner))) files[runner] = await readFile(join(dataset, runner), 'utf8');
    const taskDir = join(dataset, 'tasks', taskId);
    for (const path of await regularFiles(taskDir)) {
      const name = basename(path);
      if (name === 'task_diff.txt' || name === 'task_description.txt') continue;
      const abs = join(taskDir, path);
      const rel = abs.slice(dataset.length + 1);
      if (rel.split('/').some((part) => skipped.has(part))) continue;
      files[rel] = await readFile(abs, 'utf8');
    }
    const testCase = {
      description: `IDE-Bench grading: ./run_tests.sh ${taskId} exits 0`,
      argv: [taskId],
      files,
      timeoutMs,
      expect: { exitCode: 0 },
    };
    await mkdir(join(tmp, 'core'), { recursive: true });
    await writeFile(join(tmp, 'core', 'run-tests.yaml'), stringify(testCase, { lineWidth: 0 }));
  });
}
