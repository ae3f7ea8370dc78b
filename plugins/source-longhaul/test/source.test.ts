import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, type ConfigIssue, formatIssue } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import plugin, { LonghaulSource } from '../src/index.js';
import { problemsWith, validTask, writeTree } from './fixture.js';

async function load(root: string, options: { path?: string; tasks?: string[] } = {}) {
  return new LonghaulSource(plugin.options.parse({ path: '.', ...options })).load({ baseDir: root });
}

async function issuesOf(files: Record<string, string>): Promise<ConfigIssue[]> {
  const root = await problemsWith(files);
  const error = await load(root).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).issues;
}

describe('source longhaul: a valid task', () => {
  it('loads steps in order with the entrypoint substituted into every spec', async () => {
    const root = await problemsWith(validTask);
    const [task] = await load(root);
    expect(task).toMatchObject({
      id: 'echo',
      title: 'Echo',
      source: 'longhaul',
      root: join(root, 'echo'),
      entrypoint: 'python3 main.py',
      language: 'python',
      timeouts: { caseMs: 5000 },
      environment: {},
    });
    expect(task!.steps.map((step) => [step.index, step.id, step.title, step.phase])).toEqual([
      [0, 'echo', undefined, undefined],
      [1, 'upper', 'Upper case', 'final'],
    ]);
    expect(task!.steps[0]!.prompt).toBe('Run `python3 main.py hello` and print hello.\n');
    expect(task!.steps[1]!.prompt).toBe('Add `--upper`: `python3 main.py --upper hi` prints HI.\n');
    expect(task!.steps[0]!.solution).toBe(join(root, 'echo/steps/01-echo/solution'));
    expect(task!.steps[1]!.solution).toBeUndefined();
    expect(task!.steps[0]!.cases).toBe(join(root, 'echo/steps/01-echo/cases'));
    expect(task!.steps[1]!.metadata).toEqual({ cases: { error: 1 } });
    expect(task!.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('accepts a single task directory as path, and the task is plain JSON data', async () => {
    const root = await problemsWith(validTask);
    const tasks = await load(root, { path: 'echo' });
    expect(tasks.map((task) => task.id)).toEqual(['echo']);
    expect(JSON.parse(JSON.stringify(tasks))).toEqual(JSON.parse(JSON.stringify(tasks)));
  });

  it('changes the hash when any file of the task changes, and only then', async () => {
    const first = await load(await problemsWith(validTask));
    const same = await load(await problemsWith(validTask));
    const edited = await load(
      await problemsWith({ ...validTask, 'steps/01-echo/solution/main.py': 'print("changed")\n' }),
    );
    expect(same[0]!.hash).toBe(first[0]!.hash);
    expect(edited[0]!.hash).not.toBe(first[0]!.hash);
  });

  it('filters tasks by exact id or glob, and reports a filter that matches nothing', async () => {
    const root = await problemsWith(validTask);
    await writeFile(join(root, 'README.md'), 'not a task\n');
    expect((await load(root, { tasks: ['ec*'] })).map((task) => task.id)).toEqual(['echo']);
    const error = await load(root, { tasks: ['ecko'] }).catch((caught: ConfigError) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues[0]).toMatchObject({ key: 'tasks[0]', suggestion: 'echo' });
  });

  it("reads only the tasks the experiment's filter names: a broken task outside it is not read", async () => {
    const root = await problemsWith(validTask);
    await writeTree({ 'task.yaml': 'id: [not, a, string]\n' }, join(root, 'broken'));
    const source = new LonghaulSource(plugin.options.parse({ path: '.' }));
    expect((await source.load({ baseDir: root, tasks: ['ech?'] })).map((task) => task.id)).toEqual(['echo']);
    await expect(source.load({ baseDir: root })).rejects.toBeInstanceOf(ConfigError);
  });

  it("skips other sources' content: a script.yaml or a prs.json without task.yaml", async () => {
    const root = await problemsWith(validTask);
    await writeTree({ 'script.yaml': 'requests: []\n' }, join(root, 'emergent'));
    await writeTree({ 'prs.json': '[]\n', 'build.mjs': '' }, join(root, 'swe-steps-demo'));
    expect((await load(root)).map((task) => task.id)).toEqual(['echo']);
  });

  it('reads components.yaml, seed/ and what each step discloses', async () => {
    const root = await problemsWith({
      ...validTask,
      'components.yaml': '- id: parser\n  description: Parses argv\n',
      'steps/02-upper/step.yaml': 'discloses:\n  - component: parser\n    explicitness: 3\n',
      'seed/README.md': 'start here\n',
    });
    const [task] = await load(root);
    expect(task!.components).toEqual([{ id: 'parser', description: 'Parses argv' }]);
    expect(task!.steps[1]!.discloses).toEqual([{ component: 'parser', explicitness: 3 }]);
    expect(task!.seed).toBe(join(root, 'echo/seed'));
  });
});

describe('source longhaul: bad task files are ConfigErrors that say where', () => {
  it('a task directory without task.yaml', async () => {
    const { 'task.yaml': _, ...rest } = validTask;
    const [issue] = await issuesOf(rest);
    expect(issue!.file).toMatch(/echo\/task\.yaml$/);
    expect(issue!.message).toMatch(/missing task\.yaml/);
  });

  it('task.yaml that is not valid YAML', async () => {
    const [issue] = await issuesOf({
      ...validTask,
      'task.yaml': 'id: echo\ntitle: [Echo\nlanguage: python\n',
    });
    expect(issue).toMatchObject({ line: expect.any(Number), column: expect.any(Number) });
    expect(issue!.message).toMatch(/invalid YAML/);
  });

  it('an unknown key in task.yaml, with the closest known key as suggestion', async () => {
    const issues = await issuesOf({ ...validTask, 'task.yaml': `${validTask['task.yaml']}entrypiont: x\n` });
    expect(issues).toHaveLength(1);
    expect(formatIssue(issues[0]!)).toMatch(
      /echo\/task\.yaml:7:1: entrypiont: unknown key 'entrypiont' \(did you mean 'entrypoint'\?\)$/,
    );
  });

  it('a missing required key and a value of the wrong type', async () => {
    const issues = await issuesOf({
      ...validTask,
      'task.yaml': 'id: echo\ntitle: Echo\nlanguage: python\ntimeouts:\n  caseMs: soon\n',
    });
    expect(issues.map((issue) => issue.key).sort()).toEqual(['entrypoint', 'timeouts.caseMs']);
    expect(issues.find((issue) => issue.key === 'timeouts.caseMs')).toMatchObject({ line: 5, column: 3 });
  });

  it('a step without spec.md', async () => {
    const { 'steps/02-upper/spec.md': _, ...rest } = validTask;
    const [issue] = await issuesOf(rest);
    expect(issue!.file).toMatch(/steps\/02-upper\/spec\.md$/);
    expect(issue!.message).toMatch(/missing spec\.md/);
  });

  it('steps numbered with a gap', async () => {
    const renamed = Object.fromEntries(
      Object.entries(validTask).map(([path, text]) => [path.replace('02-upper', '03-upper'), text]),
    );
    const issues = await issuesOf(renamed);
    expect(issues.map((issue) => issue.message)).toContainEqual(
      expect.stringMatching(/expected step 2, found 3/),
    );
  });

  it('cases or a solution that is a file, not a folder, is an error (not a step with no tests)', async () => {
    const withoutCases = Object.fromEntries(
      Object.entries(validTask).filter(([path]) => !path.startsWith('steps/01-echo/cases/')),
    );
    const issues = await issuesOf({
      ...withoutCases,
      'steps/01-echo/cases': 'core/x.yaml\n',
      'steps/02-upper/solution': 'main.py\n',
    });
    expect(issues.map(formatIssue).map((line) => line.replace(/^.*\/steps\//, 'steps/'))).toEqual([
      'steps/01-echo/cases: cases must be a directory (cases/<category>/<case>.yaml), not a file',
      'steps/02-upper/solution: solution must be a directory (the reference workspace after this step), not a file',
    ]);
  });

  it('a task.yaml that is a directory', async () => {
    const { 'task.yaml': _, ...rest } = validTask;
    const issues = await issuesOf({ ...rest, 'task.yaml/x': '' });
    expect(issues.map(formatIssue)[0]).toMatch(/task\.yaml: is a directory; give the path of a YAML file$/);
  });

  it('a case in an unknown category, with a suggestion', async () => {
    const [issue] = await issuesOf({
      ...validTask,
      'steps/01-echo/cases/functional/x.yaml': 'argv: []\nexpect: {}\n',
    });
    expect(issue!.file).toMatch(/cases\/functional$/);
    expect(issue!.suggestion).toBe('functionality');
  });

  it('a case whose expected block is bad', async () => {
    const issues = await issuesOf({
      ...validTask,
      'steps/01-echo/cases/core/bad.yaml':
        'argv: [x]\nexpect:\n  exitcode: 0\n  stdout:\n    text: a\n    json: {}\n  stderr:\n    regex: "(["\n',
    });
    const formatted = issues.map(formatIssue);
    expect(formatted).toContainEqual(
      expect.stringMatching(
        /bad\.yaml:3:3: expect\.exitcode: unknown key 'exitcode' \(did you mean 'exitCode'\?\)/,
      ),
    );
    expect(formatted).toContainEqual(
      expect.stringMatching(/bad\.yaml:4:3: expect\.stdout: needs exactly one of/),
    );
    expect(formatted).toContainEqual(
      expect.stringMatching(/bad\.yaml:\d+:\d+: expect\.stderr\.regex: .*regular expression/i),
    );
  });

  it('a case input file that escapes the workspace', async () => {
    const [issue] = await issuesOf({
      ...validTask,
      'steps/01-echo/cases/core/escape.yaml': 'argv: []\nfiles:\n  ../x: hi\nexpect: {}\n',
    });
    expect(issue).toMatchObject({ key: 'files.../x' });
  });

  it('an unknown placeholder in spec.md, located at its line and column', async () => {
    const [issue] = await issuesOf({
      ...validTask,
      'steps/01-echo/spec.md': 'Intro\n\nRun {{entry}} now.\n',
    });
    expect(issue).toMatchObject({ line: 3, column: 5 });
    expect(issue!.message).toMatch(/unknown placeholder '\{\{entry\}\}'/);
  });

  it('a misnamed entry in a step directory and a disclosed component that does not exist', async () => {
    const issues = await issuesOf({
      ...validTask,
      'steps/01-echo/case/core/x.yaml': 'argv: []\nexpect: {}\n',
      'components.yaml': '- id: parser\n  description: Parses argv\n',
      'steps/02-upper/step.yaml': 'discloses:\n  - component: parsr\n    explicitness: 2\n',
    });
    expect(issues.find((issue) => issue.file.endsWith('01-echo/case'))?.suggestion).toBe('cases');
    expect(issues.find((issue) => issue.key === 'discloses[0].component')).toMatchObject({
      line: 2,
      suggestion: 'parser',
    });
  });

  it('reports the issues of every task at once and an id that differs from the directory', async () => {
    const root = await problemsWith({
      ...validTask,
      'task.yaml': validTask['task.yaml']!.replace('id: echo', 'id: eco'),
    });
    await mkdir(join(root, 'empty'));
    const error = await load(root).catch((caught: ConfigError) => caught);
    const issues = (error as ConfigError).issues;
    expect(issues.map((issue) => issue.message)).toEqual([
      "task id must equal its directory name 'echo'",
      'missing task.yaml (every task directory needs one)',
    ]);
  });

  it('a path that does not exist', async () => {
    const root = await problemsWith(validTask);
    await expect(load(root, { path: 'nowhere' })).rejects.toThrow(/nowhere: path: no such directory/);
  });
});

describe('source longhaul: the problems shipped with longhaul', () => {
  it('load without issues', async () => {
    const root = join(import.meta.dirname, '../../..');
    const tasks = await load(root, { path: 'problems' });
    const worklog = tasks.find((task) => task.id === 'worklog');
    expect(worklog?.steps.map((step) => step.metadata.cases)).toEqual([
      { core: 12, functionality: 6, error: 3 },
      { core: 12, functionality: 6, error: 3 },
      { core: 12, functionality: 6, error: 3 },
      { core: 13, functionality: 6, error: 3 },
    ]);
    expect(worklog?.steps.every((step) => step.prompt.includes('python3 main.py summary'))).toBe(true);
    expect(worklog?.steps.every((step) => !step.prompt.includes('{{'))).toBe(true);
    const disclosed = new Set(
      worklog?.steps.flatMap((step) => step.discloses ?? []).map((item) => item.component),
    );
    expect(worklog?.components?.map((component) => component.id).filter((id) => !disclosed.has(id))).toEqual(
      [],
    );
  });
});
