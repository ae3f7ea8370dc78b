import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import {
  ConfigError,
  type ConfigIssue,
  readDirectoryFiles,
  type Source,
  type SourceContext,
  sha256,
  type Task,
} from '@longhaul/core';
import { parseDescription, taskPrompt } from './description.js';
import {
  hiddenFromAgent,
  materializeCase,
  materializeImageContext,
  materializeSeed,
  materializeSolution,
} from './materialize.js';
import { runnerNeeds, workdirOf, workspaceMention } from './needs.js';
import type { IdebenchOptions } from './options.js';

/** The language a tag names, for the task's `language` (what the agent's code is written in). */
const languageTags: Record<string, string> = {
  python: 'python',
  py: 'python',
  javascript: 'node',
  typescript: 'node',
  js: 'node',
  ts: 'node',
  node: 'node',
  mern: 'node',
  java: 'java',
  c: 'c',
  cpp: 'c++',
  'c++': 'c++',
  go: 'go',
};

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** The version of what load writes under cacheDir (seed, solutions, cases). */
const layout = 'idebench-cases/3';

/** Sorts task-2 before task-10. */
function byNumber(a: string, b: string): number {
  return a.localeCompare(b, undefined, { numeric: true });
}

/**
 * Tasks in IDE-Bench's dataset layout: a repository with `run_tests.sh` and
 * `tasks/<id>/{task_description.txt, task_diff.txt, task_tests.*}`. Each task is one step whose
 * prompt is the description; the agent's workspace is the repository without `tasks/` and the
 * test runners; the reference solution is the golden diff applied; grading runs
 * `./run_tests.sh <id>` in the scorer's own sandbox (exit code 0 passes).
 */
export class IdebenchSource implements Source {
  constructor(private readonly options: IdebenchOptions) {}

  async load(ctx: SourceContext): Promise<Task[]> {
    const dataset = resolve(ctx.baseDir, this.options.path);
    const issues: ConfigIssue[] = [];
    const where = { file: dataset, key: 'path' };
    if (!(await isFile(join(dataset, 'run_tests.sh'))))
      throw new ConfigError([
        {
          ...where,
          message: 'is not an IDE-Bench dataset: it has no run_tests.sh (source idebench: option path)',
        },
      ]);
    const ids = (await readdir(join(dataset, 'tasks'), { withFileTypes: true }).catch(() => []))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort(byNumber);
    if (ids.length === 0) throw new ConfigError([{ ...where, message: 'has no tasks/<id>/ directories' }]);

    const files = (await readDirectoryFiles(dataset)).filter(
      (file) => !file.path.split('/').some((part) => part === '__pycache__' || part === '.git'),
    );
    const hash = sha256(files.map((file) => `${file.path}\0${sha256(file.data)}\n`).join(''));
    // A new layout of what is written there never reuses an older one's.
    const cache = join(
      resolve(ctx.baseDir, this.options.cacheDir),
      sha256(`${layout}\0${hash}`).slice(0, 16),
    );
    const seed = join(cache, 'seed');
    await materializeSeed(dataset, seed);
    const name = basename(dataset);
    const hasDockerfile = await isFile(join(dataset, 'Dockerfile'));
    const imageContext = join(cache, 'image');
    if (this.options.dockerfile && hasDockerfile) await materializeImageContext(dataset, imageContext);
    const text = (path: string) => {
      const data = files.find((file) => file.path === path)?.data;
      return data && Buffer.from(data).toString('utf8');
    };
    // Where upstream runs the repository (its Dockerfile's WORKDIR), and what grading runs:
    // run_tests.sh's programs, whatever the tags say the project is written in.
    const workspace = workdirOf(text('Dockerfile'));
    const runner = runnerNeeds(text('run_tests.sh') ?? '', 'run_tests.sh');
    const requires = {
      commands: ['bash', ...runner.commands.filter((command) => command !== 'bash')],
      ...(runner.pythonPackages.length > 0 ? { pythonPackages: runner.pythonPackages } : {}),
      origins: { bash: 'run_tests.sh', ...runner.origins },
    };
    // Files grading reads besides the task's own: the runners and the dataset's test folders.
    const gradingFiles = files
      .filter((file) => {
        const [top] = file.path.split('/');
        return (hiddenFromAgent.has(top!) && top !== 'tasks') || top === 'tests';
      })
      .map((file) => ({ path: file.path, text: Buffer.from(file.data).toString('utf8') }));

    const tasks: Task[] = [];
    for (const id of ids) {
      const dir = join(dataset, 'tasks', id);
      const descriptionFile = join(dir, 'task_description.txt');
      const diffFile = join(dir, 'task_diff.txt');
      const missing: string[] = [];
      for (const [file, label] of [
        [descriptionFile, 'task_description.txt'],
        [diffFile, 'task_diff.txt'],
      ] as const)
        if (!(await isFile(file))) missing.push(label);
      const tests = (await readdir(dir)).filter((entry) => entry.startsWith('task_tests.'));
      if (tests.length === 0) missing.push('task_tests.*');
      if (missing.length > 0) {
        issues.push({ file: dir, message: `task ${id} lacks ${missing.join(', ')}` });
        continue;
      }
      const parsed = parseDescription(await readFile(descriptionFile, 'utf8'), descriptionFile);
      issues.push(...parsed.issues);
      const description = parsed.description;
      if (!description) continue;
      const solution = join(cache, id, 'solution');
      const cases = join(cache, id, 'cases');
      try {
        await materializeSolution(seed, diffFile, solution);
      } catch (error) {
        issues.push({ file: diffFile, message: (error as Error).message });
        continue;
      }
      await materializeCase(dataset, id, this.options.testTimeoutSeconds * 1000, cases);
      const language = description.tags.map((tag) => languageTags[tag.toLowerCase()]).find(Boolean);
      const taskFiles = files
        .filter(
          (file) =>
            file.path.startsWith(`tasks/${id}/`) && !/\/task_(diff|description)\.txt$/.test(file.path),
        )
        .map((file) => ({ path: file.path, text: Buffer.from(file.data).toString('utf8') }));
      const mention = workspaceMention([...taskFiles, ...gradingFiles], workspace);
      tasks.push({
        id: `${name}-${id}`,
        title: `${name} ${id}: ${description.task}`,
        description: description.instructions.split('\n')[0],
        source: 'idebench',
        root: dir,
        entrypoint: 'bash run_tests.sh',
        language: language ?? 'unknown',
        environment: {
          ...(this.options.dockerfile && hasDockerfile
            ? { dockerfile: join(imageContext, 'Dockerfile') }
            : {}),
          network: description.tags.some((tag) => /^(mern|full-?stack)$/i.test(tag)) ? 'open' : 'none',
          workspace,
          ...(mention ? { workspaceRequired: `${mention} names ${workspace}` } : {}),
          requires,
        },
        promptsAsWritten: true,
        seed,
        steps: [
          {
            id,
            index: 0,
            title: description.task,
            prompt: taskPrompt(description, this.options.problemStatement),
            solution,
            cases,
            metadata: { category: description.category, difficulty: description.difficulty },
          },
        ],
        timeouts: { caseMs: this.options.testTimeoutSeconds * 1000 },
        hash: `sha256:${hash}`,
        metadata: {
          dataset: name,
          task: id,
          slug: description.task,
          difficulty: description.difficulty,
          category: description.category,
          tags: description.tags,
          parserName: description.parserName,
        },
      });
    }
    if (issues.length > 0) throw new ConfigError(issues);
    return tasks;
  }
}
