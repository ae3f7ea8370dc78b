import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, readCliCase, readDirectoryFiles } from '@longhaul/core';
import { describeSource } from '@longhaul/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDescription } from '../src/description.js';
import { IdebenchSource } from '../src/idebench-source.js';
import { idebenchOptions } from '../src/options.js';

const fixtures = join(import.meta.dirname, 'fixtures');
const cacheDir = await mkdtemp(join(tmpdir(), 'idebench-cache-'));
afterAll(() => rm(cacheDir, { recursive: true, force: true }));

const source = (path = 'mini-inventory') => new IdebenchSource(idebenchOptions.parse({ path, cacheDir }));

describeSource('idebench', () => source(), { baseDir: fixtures }, { minTasks: 3 });

describe('task_description.txt', () => {
  it('reads the YAML form, keeping the problem statement', () => {
    const { description } = parseDescription(
      'task_description: |\n  Task: speed-up\n\n  The cache is slow.\n\n  Instructions:\n    Make it fast.\n\ndifficulty: hard\ncategory: Performance\ntags: [python, cache]\nparser_name: <pytest>\n',
      'x.txt',
    );
    expect(description).toEqual({
      task: 'speed-up',
      text: 'Task: speed-up\n\nThe cache is slow.\n\nInstructions:\n  Make it fast.',
      statement: 'The cache is slow.',
      instructions: 'Make it fast.',
      difficulty: 'hard',
      category: 'Performance',
      tags: ['python', 'cache'],
      parserName: 'pytest',
    });
  });

  it('reads the legacy flat form with its defaults', () => {
    const { description } = parseDescription(
      'Task: fix-login\nInstructions: Make login work.\nparser_name: jest\n',
      'y.txt',
    );
    expect(description).toMatchObject({
      task: 'fix-login',
      instructions: 'Make login work.',
      tags: ['mern'],
      category: 'Backend',
      difficulty: 'medium',
    });
  });

  it('says what is missing and where', () => {
    const { issues } = parseDescription('task_description: |\n  Just words.\n', 'z.txt');
    expect(issues.map((i) => i.message)).toEqual([
      'has no "Task: <slug>" line',
      'has no "Instructions:" section',
    ]);
    expect(issues[0]).toMatchObject({ file: 'z.txt', key: 'task_description' });
  });
});

describe('the idebench source', () => {
  it('loads one single-step task per tasks/<id>, hiding tasks and test runners from the seed', async () => {
    const tasks = await source().load({ baseDir: fixtures });
    expect(tasks.map((t) => t.id)).toEqual([
      'mini-inventory-task-1',
      'mini-inventory-task-2',
      'mini-inventory-task-3',
    ]);
    const [first] = tasks;
    expect(first).toMatchObject({
      source: 'idebench',
      entrypoint: 'bash run_tests.sh',
      language: 'python',
      // What grading runs (run_tests.sh), not what the tags say; the workspace where the Dockerfile puts it.
      environment: {
        network: 'none',
        workspace: '/app',
        requires: {
          commands: ['bash', 'dirname', 'python3'],
          origins: { bash: 'run_tests.sh', dirname: 'run_tests.sh:4', python3: 'run_tests.sh:8' },
        },
      },
      promptsAsWritten: true,
      metadata: {
        category: 'Bug Fix',
        difficulty: 'easy',
        tags: ['python', 'inventory'],
        slug: 'inventory-value',
      },
    });
    expect(first!.environment).not.toHaveProperty('toolchains');
    expect(first!.environment).not.toHaveProperty('workspaceRequired');
    expect(first!.steps).toHaveLength(1);
    // IDE-Bench's task block (agent_utils.py), the problem statement before the instructions.
    expect(first!.steps[0]!.prompt).toMatch(
      /^## CURRENT TASK\n\n\*\*Task\*\*: inventory-value\n\nThe finance team reports[\s\S]*\n\n\*\*Instructions\*\*:\nFiles to Modify:/,
    );
    expect(first!.steps[0]!.prompt).toContain('quantity times unit price');
    const [bare] = await new IdebenchSource(
      idebenchOptions.parse({ path: 'mini-inventory', cacheDir, problemStatement: false }),
    ).load({ baseDir: fixtures });
    expect(bare!.steps[0]!.prompt).not.toContain('The finance team');
    const seed = (await readDirectoryFiles(first!.seed!)).map((f) => f.path);
    expect(seed).toContain('project/inventory/stock.py');
    expect(seed).toContain('Dockerfile');
    expect(seed.some((p) => p.startsWith('tasks/') || p === 'run_tests.sh')).toBe(false);
  });

  it("with dockerfile: true, builds the dataset's Dockerfile from a context without tasks/", async () => {
    const [task] = await new IdebenchSource(
      idebenchOptions.parse({ path: 'mini-inventory', cacheDir, dockerfile: true }),
    ).load({ baseDir: fixtures });
    const dockerfile = task!.environment.dockerfile!;
    expect(dockerfile).toMatch(/\/Dockerfile$/);
    const context = (await readDirectoryFiles(join(dockerfile, '..'))).map((f) => f.path);
    expect(context).toEqual(
      expect.arrayContaining(['Dockerfile', 'run_tests.sh', 'project/inventory/stock.py']),
    );
    // The image's WORKDIR is where the workspace starts: no hidden test or golden patch goes there.
    expect(context.filter((p) => p.startsWith('tasks/'))).toEqual([]);
  });

  it('makes the reference solution by applying the golden diff, and the hidden test a CLI case', async () => {
    const [task] = await source().load({ baseDir: fixtures });
    const step = task!.steps[0]!;
    const solved = await readFile(join(step.solution!, 'project/inventory/stock.py'), 'utf8');
    expect(solved).toContain('item.quantity * item.price');
    const testCase = await readCliCase(join(step.cases!, 'core', 'run-tests.yaml'));
    expect(testCase).toMatchObject({ argv: ['task-1'], expect: { exitCode: 0 }, timeoutMs: 120_000 });
    // The grader, the task's tests and the dataset's base tests, over whatever the agent left there.
    expect(Object.keys(testCase.files!).sort()).toEqual([
      'run_tests.sh',
      'tasks/task-1-longhaul-canary/task_tests.py',
      'tasks/task-1/task_tests.py',
      'tests/base/runner.py',
      'tests/base/stock_fixture.py',
      'tests/base/test_base.py',
    ]);
    expect(testCase.remove).toEqual(
      expect.arrayContaining(['/tasks', 'tests', 'conftest.py', 'sitecustomize.py']),
    );
    // The canary (the task's tests and one that fails) must make the grader fail first.
    expect(testCase.before).toEqual([{ argv: ['task-1-longhaul-canary'], exitCode: 'nonzero' }]);
    // Before the __main__ block that runs the tests, so this dataset's runner runs it too.
    const main = 'if _longhaul_guard(__name__) == _longhaul_guard("__main__"):';
    expect(testCase.files!['tasks/task-1-longhaul-canary/task_tests.py']).toBe(
      testCase.files!['tasks/task-1/task_tests.py']!.replace(
        main,
        `def test_longhaul_canary():\n    assert False, "the grader's canary: run_tests.sh must fail when a test fails"\n\n\n${main}`,
      ),
    );
    // Every Python file it writes compares through the guard (guardComparisons).
    expect(testCase.files!['tasks/task-1/task_tests.py']).toContain(
      'assert _longhaul_guard(Inventory().total_value()) == _longhaul_guard(0)',
    );
    for (const [path, text] of Object.entries(testCase.files!))
      if (path.endsWith('.py')) expect(text, path).toMatch(/^exec\(".*_longhaul_guard/m);
  });

  it('refuses a directory that is not a dataset, and a task with a diff that does not apply', async () => {
    await expect(source('nowhere').load({ baseDir: fixtures })).rejects.toThrow(/no run_tests.sh/);
    const broken = await mkdtemp(join(tmpdir(), 'idebench-broken-'));
    try {
      await cp(join(fixtures, 'mini-inventory'), broken, { recursive: true });
      await writeFile(
        join(broken, 'tasks/task-2/task_diff.txt'),
        'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n',
      );
      const error = await source(broken)
        .load({ baseDir: fixtures })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues).toMatchObject([
        {
          file: join(broken, 'tasks/task-2/task_diff.txt'),
          message: expect.stringMatching(/git apply .* failed/),
        },
      ]);
    } finally {
      await rm(broken, { recursive: true, force: true });
    }
  });
});
