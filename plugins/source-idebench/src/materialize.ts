import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { excludeMatcher, regularFiles } from '@longhaul/core';
import { guardComparisons } from '@longhaul/metrics';
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
 * What of the workspace the grader owns when a task is graded, as environments' excludes read
 * paths (a name anywhere, `/name` at the root): the runners and tasks, test folders and modules,
 * conftest.py, the test runners' configuration, Python's startup files and modules named like
 * pytest. Whatever the agent left there is removed before grading, and the dataset's own versions
 * are written back: run_tests.sh runs the dataset's tests, with its configuration, on the agent's
 * code alone.
 */
export const graderOwned: readonly string[] = [
  '/tasks',
  '/run_tests.sh',
  '/run-tests.sh',
  'tests',
  'test',
  '__tests__',
  'test_*.py',
  '*_test.py',
  '*.{test,spec}.{js,jsx,ts,tsx,mjs,cjs}',
  'conftest.py',
  'pytest.ini',
  '.pytest.ini',
  'tox.ini',
  'setup.cfg',
  'pyproject.toml',
  '{jest,vitest,vite,babel}.config.{js,cjs,mjs,ts,json}',
  '.mocharc*',
  'sitecustomize.py',
  'usercustomize.py',
  '*.pth',
  'pytest.py',
  'pytest',
  '_pytest',
  'py.py',
];

/** The name of the canary task run before a task's own: its tests and one that must fail. */
export const canaryOf = (taskId: string) => `${taskId}-longhaul-canary`;

const canaryTest = `def test_longhaul_canary():
    assert False, "the grader's canary: run_tests.sh must fail when a test fails"
`;

/** The task's tests with the canary test added, before a `__main__` block that runs them if there is one. */
function withCanary(tests: string): string {
  const main = /^if __name__ == ["']__main__["']:/m.exec(tests);
  if (!main) return `${tests}\n\n${canaryTest}`;
  return `${tests.slice(0, main.index)}${canaryTest}\n\n${tests.slice(main.index)}`;
}

/**
 * The hidden test as a CLI case of the `tests` scorer: in the scorer's own sandbox, what the
 * grader owns (`graderOwned`) is cleared and the dataset's versions written (run_tests.sh, the
 * task's tests, the dataset's test folders and configuration), then `run_tests.sh <task>` must
 * exit 0. Before it, for Python tests, `run_tests.sh` runs a canary task (the task's tests plus
 * one that fails) and must fail: a tree that makes the grader succeed whatever its tests say
 * (a process ending with status 0 at import, pytest's reports rewritten) fails the case. The
 * Python files it writes have their comparisons guarded (`guardComparisons`).
 */
export async function materializeCase(
  dataset: string,
  taskId: string,
  timeoutMs: number,
  dir: string,
): Promise<void> {
  await once(dir, async (tmp) => {
    const files: Record<string, string> = {};
    const owned = excludeMatcher(graderOwned);
    for (const path of await regularFiles(dataset)) {
      if (path.split('/').some((part) => skipped.has(part))) continue;
      if (path.startsWith('tasks/') || !owned(path)) continue;
      files[path] = await readFile(join(dataset, path), 'utf8');
    }
    const taskDir = join(dataset, 'tasks', taskId);
    for (const path of await regularFiles(taskDir)) {
      const name = basename(path);
      if (name === 'task_diff.txt' || name === 'task_description.txt') continue;
      const abs = join(taskDir, path);
      const rel = abs.slice(dataset.length + 1);
      if (rel.split('/').some((part) => skipped.has(part))) continue;
      files[rel] = await readFile(abs, 'utf8');
    }
    const tests = files[`tasks/${taskId}/task_tests.py`];
    const canary = canaryOf(taskId);
    if (tests !== undefined) files[`tasks/${canary}/task_tests.py`] = withCanary(tests);
    // The tests import the program: an object it made equal to anything fails what compares it.
    for (const path of Object.keys(files))
      if (path.endsWith('.py')) files[path] = guardComparisons(files[path]!);
    const testCase = {
      description: `IDE-Bench grading: ./run_tests.sh ${taskId} exits 0${tests !== undefined ? `, and fails when one of its tests fails (${canary})` : ''}`,
      remove: graderOwned,
      files,
      ...(tests !== undefined ? { before: [{ argv: [canary], exitCode: 'nonzero' }] } : {}),
      argv: [taskId],
      timeoutMs,
      expect: { exitCode: 0 },
    };
    await mkdir(join(tmp, 'core'), { recursive: true });
    await writeFile(join(tmp, 'core', 'run-tests.yaml'), stringify(testCase, { lineWidth: 0 }));
  });
}
