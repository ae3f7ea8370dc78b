import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, type ConfigIssue, formatIssue, loadExperiment } from '@longhaul/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experiments, makeProject } from '../fixtures/config/project.js';

let cwd: string;
let remove: () => Promise<void>;
beforeAll(async () => {
  ({ dir: cwd, remove } = await makeProject());
});
afterAll(() => remove());

async function issuesOf(
  name: string,
  opts: { set?: string[]; env?: Record<string, string>; tasks?: string[] } = {},
) {
  const error = await loadExperiment(join(experiments, name), { cwd, env: {}, ...opts }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).issues;
}

const at = (name: string, line: number, column: number, key: string | undefined, message: RegExp | string) =>
  expect.objectContaining({
    file: join(experiments, name),
    line,
    column,
    ...(key === undefined ? {} : { key }),
    message: typeof message === 'string' ? message : expect.stringMatching(message),
  });

describe('a bad experiment file is rejected with file, line, column and key', () => {
  it('YAML syntax error', async () => {
    // Written at test time: a broken YAML file in the tree would break the linter, which parses YAML.
    const file = join(cwd, 'syntax-error.yaml');
    await writeFile(file, 'source: list\nharness: [echo, agent\nrepeats: 1\n');
    const error = await loadExperiment(file, { cwd, env: {} }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues;
    expect(issues).toEqual([
      {
        file,
        line: 3,
        column: 1,
        message:
          'invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
      },
    ]);
    // A syntax error has no key: the file never parsed into keys.
    expect(issues[0]?.key).toBeUndefined();
  });

  it('a file that is not a mapping', async () => {
    expect(await issuesOf('not-a-mapping.yaml')).toEqual([
      at('not-a-mapping.yaml', 1, 1, undefined, /must be a mapping/),
    ]);
  });

  it('unknown keys, at the top and nested, with the closest known key', async () => {
    const issues = await issuesOf('unknown-key.yaml');
    expect(issues).toEqual([
      at('unknown-key.yaml', 4, 1, 'concurency', "unknown key 'concurency'"),
      at('unknown-key.yaml', 6, 3, 'limits.turnSecond', "unknown key 'turnSecond'"),
    ]);
    expect(issues.map((issue) => issue.suggestion)).toEqual(['concurrency', 'turnSeconds']);
  });

  it('unknown plugin ids, with the closest installed id', async () => {
    const issues = await issuesOf('unknown-plugin.yaml');
    expect(issues).toEqual([
      // The fixture experiment sits in the repository, so its project's plugins are offered too.
      at(
        'unknown-plugin.yaml',
        5,
        5,
        'harness[1]',
        /^unknown harness 'agnet' \(installed: agent, (.+, )?echo(, .+)?\)$/,
      ),
      at(
        'unknown-plugin.yaml',
        6,
        1,
        'script',
        /^unknown script 'chekpoints' \(installed: checkpoints, (.+, )?isolated(, .+)?\)$/,
      ),
    ]);
    expect(formatIssue(issues[0] as ConfigIssue)).toMatch(
      /unknown-plugin\.yaml:5:5: harness\[1\]: unknown harness 'agnet' .*\(did you mean 'agent'\?\)$/,
    );
  });

  it('an id far from every installed one names the package longhaul would have it in', async () => {
    const issues = await issuesOf('unknown-plugin.yaml', {
      set: ['harness=[echo, zed-agent]', 'script=checkpoints'],
    });
    expect(issues.map((issue) => issue.message)).toEqual([
      expect.stringMatching(
        /^unknown harness 'zed-agent' \(installed: .*; longhaul's would be in the package @longhaul\/harness-zed-agent\)$/,
      ),
    ]);
  });

  it("a plugin option of the wrong type, and a misspelt option, checked by the plugin's schema", async () => {
    const issues = await issuesOf('bad-option.yaml');
    expect(issues).toEqual([
      at('bad-option.yaml', 7, 7, 'harness[1].options.model', 'expected string, got number 5'),
      at('bad-option.yaml', 8, 7, 'harness[1].options.efort', "unknown key 'efort'"),
    ]);
    expect(issues[1]?.suggestion).toBe('effort');
  });

  it('a missing required plugin option, located at the options it belongs in', async () => {
    expect(await issuesOf('missing-option.yaml')).toEqual([
      at('missing-option.yaml', 5, 5, 'harness[0].options.model', "missing required key 'model' (string)"),
    ]);
  });

  it('an environment variable that is not set and has no default', async () => {
    expect(await issuesOf('env.yaml')).toEqual([
      at('env.yaml', 6, 5, 'harness.options.model', /environment variable LONGHAUL_TEST_MODEL is not set/),
    ]);
  });

  it('wrong types and ranges for repeats and limits, all reported at once', async () => {
    expect(await issuesOf('bad-types.yaml')).toEqual([
      at('bad-types.yaml', 4, 1, 'repeats', "expected number, got string 'two'"),
      at('bad-types.yaml', 6, 3, 'limits.turnSeconds', /expected number to be >0/),
      at('bad-types.yaml', 7, 3, 'limits.onError', /expected one of "stop"\|"continue"/),
    ]);
  });

  it('the same task id from two sources', async () => {
    expect(await issuesOf('duplicate-tasks.yaml')).toEqual([
      at(
        'duplicate-tasks.yaml',
        4,
        5,
        'source[1]',
        "sources 'list#1' and 'list#2' both have a task with the id 'calc'; task ids must be unique in an experiment",
      ),
    ]);
  });

  it('a --tasks pattern that matches no task names --tasks and lists every task, though the source filters', async () => {
    expect(await issuesOf('task-filter.yaml', { tasks: ['calc', 'wordfrq'] })).toEqual([
      {
        file: '--tasks',
        message: "no task matches 'wordfrq' (tasks: wordfreq, wordcount, calc)",
        suggestion: 'wordfreq',
      },
    ]);
  });

  it('a task filter that matches no task, with the closest task id', async () => {
    const issues = await issuesOf('task-filter.yaml');
    expect(issues).toEqual([at('task-filter.yaml', 3, 15, 'tasks[1]', /^no task matches 'wordfrq'/)]);
    expect(issues[0]?.suggestion).toBe('wordfreq');
  });

  it('a plugins: path that does not exist', async () => {
    expect(await issuesOf('missing-plugin-path.yaml')).toEqual([
      at(
        'missing-plugin-path.yaml',
        5,
        5,
        'plugins[3]',
        `plugin path does not exist: ${join(experiments, 'plugins/not-here')}`,
      ),
    ]);
  });

  it('a plugin package without a default export', async () => {
    expect(await issuesOf('no-default.yaml')).toEqual([
      at(
        'no-default.yaml',
        4,
        5,
        'plugins[2]',
        /^plugin package '@fixture\/no-default' has no default export/,
      ),
    ]);
  });

  it('a plugin folder whose module throws while importing', async () => {
    expect(await issuesOf('broken-plugin.yaml')).toEqual([
      at(
        'broken-plugin.yaml',
        1,
        54,
        'plugins[2]',
        /failed to import .*: cannot initialise the broken plugin \(function\)$/,
      ),
    ]);
  });

  it('an installed plugin whose package cannot be loaded, when the experiment uses it', async () => {
    const project = await makeProject(['unbuilt']);
    try {
      const file = join(experiments, 'uses-unbuilt.yaml');
      const error = await loadExperiment(file, { cwd: project.dir, env: {} }).catch(
        (caught: unknown) => caught,
      );
      expect((error as ConfigError).issues).toEqual([
        at(
          'uses-unbuilt.yaml',
          3,
          17,
          'harness[1]',
          /^harness 'unbuilt' cannot be used: .*\/node_modules\/@fixture\/unbuilt\/package\.json: plugin package '@fixture\/unbuilt' has no entry module/,
        ),
      ]);
      // Experiments that do not use it are not held up by it.
      await expect(
        loadExperiment(join(experiments, 'minimal.yaml'), { cwd: project.dir, env: {} }),
      ).resolves.toBeDefined();
    } finally {
      await project.remove();
    }
  });

  it('the same plugin twice on an axis with the same options', async () => {
    expect(await issuesOf('duplicate-ref.yaml')).toEqual([
      at(
        'duplicate-ref.yaml',
        6,
        5,
        'harness[1]',
        /harness 'agent' is listed twice in harness with the same options/,
      ),
    ]);
  });

  it("a source's own ConfigError about a task file comes through intact", async () => {
    expect(await issuesOf('bad-task-file.yaml')).toEqual([
      {
        file: join(experiments, 'tasks-bad.yaml'),
        line: 5,
        column: 5,
        key: 'tasks[1].steps',
        message: 'a task needs a non-empty list of steps',
      },
    ]);
  });

  it("a source's issues about tasks it still built come with the experiment made of those tasks, for the environment to check too", async () => {
    const error = (await loadExperiment(join(experiments, 'unready-task.yaml'), { cwd, env: {} }).catch(
      (caught: unknown) => caught,
    )) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.issues).toEqual([
      expect.objectContaining({
        file: join(experiments, 'tasks-unready.yaml'),
        line: 6,
        key: 'tasks[1].unready',
        message: 'its data file is a Git LFS pointer',
      }),
    ]);
    expect(error.loaded?.experiment?.tasks.map((task) => task.id)).toEqual(['wordfreq', 'tinykv']);
    expect(error.loaded?.experiment?.trials).toHaveLength(2);
    // With an issue of the experiment itself there is no experiment to carry.
    const worse = (await loadExperiment(join(experiments, 'unready-task.yaml'), {
      cwd,
      env: {},
      set: ['repeats=0'],
    }).catch((caught: unknown) => caught)) as ConfigError;
    expect(worse.issues.map(formatIssue)).toEqual([
      expect.stringContaining('repeats'),
      expect.stringContaining('its data file is a Git LFS pointer'),
    ]);
    expect(worse.loaded).toBeUndefined();
  });

  it("a task's issue holds up only an experiment that selects it; another gets one warning line", async () => {
    const file = join(experiments, 'unready-task.yaml');
    const experiment = await loadExperiment(file, { cwd, env: {}, tasks: ['word*'] });
    expect(experiment.tasks.map((task) => task.id)).toEqual(['wordfreq']);
    expect(experiment.warnings).toEqual([
      '1 problem in 1 task this experiment does not select (tinykv); select them in tasks: to see them',
    ]);
    const selected = (await loadExperiment(file, { cwd, env: {}, tasks: ['tinykv'] }).catch(
      (caught: unknown) => caught,
    )) as ConfigError;
    expect(selected.issues.map(formatIssue)).toEqual([expect.stringContaining('Git LFS pointer')]);
    expect(selected.loaded?.experiment?.tasks.map((task) => task.id)).toEqual(['tinykv']);
  });

  it('a file that does not exist', async () => {
    expect(await issuesOf('no-such-experiment.yaml')).toEqual([
      {
        file: join(experiments, 'no-such-experiment.yaml'),
        message: 'cannot read file: no such file or directory (ENOENT)',
      },
    ]);
  });
});

describe('bad --set overrides are located in the --set arguments', () => {
  it('reports a missing "=", an invalid key path and a value that is not YAML', async () => {
    const issues = await issuesOf('minimal.yaml', {
      set: ['repeats=2', 'repeats', 'harness..id=x', 'limits=[1'],
    });
    expect(issues).toEqual([
      { file: '--set', line: 2, column: 1, key: 'repeats', message: "expected key=value, got 'repeats'" },
      expect.objectContaining({
        file: '--set',
        line: 3,
        column: 1,
        key: 'harness..id',
        message: expect.stringMatching(/invalid key path/),
      }),
      expect.objectContaining({
        file: '--set',
        line: 4,
        column: 8,
        key: 'limits',
        message: expect.stringMatching(/not valid YAML/),
      }),
    ]);
  });

  it('reports a value that fails validation at its --set argument, not in the file', async () => {
    const issues = await issuesOf('minimal.yaml', {
      set: ['concurrency=2', 'repeats=zero', 'harness.options.model=x'],
    });
    expect(issues).toEqual([
      {
        file: '--set',
        line: 2,
        column: 9,
        key: 'repeats',
        message: "expected number, got string 'zero'",
        suggestion: undefined,
      },
      expect.objectContaining({
        file: '--set',
        line: 3,
        column: 23,
        key: 'harness.options.model',
        message: "unknown key 'model'",
      }),
    ]);
  });

  it('refuses to set a key inside a plain value or a list', async () => {
    expect(await issuesOf('minimal.yaml', { set: ['harness.id.x=1', 'plugins.first=x'] })).toEqual([
      expect.objectContaining({
        file: '--set',
        line: 1,
        key: 'harness.id.x',
        message: 'cannot set a key inside harness.id, which is "echo"',
      }),
      expect.objectContaining({
        file: '--set',
        line: 2,
        key: 'plugins.first',
        message: expect.stringMatching(/a list/),
      }),
    ]);
  });

  it('locates a problem in a key an override created at that override', async () => {
    expect(await issuesOf('minimal.yaml', { set: ['repeats.count=2'] })).toEqual([
      expect.objectContaining({
        file: '--set',
        line: 1,
        column: 15,
        key: 'repeats',
        message: 'expected number, got a mapping',
      }),
    ]);
  });
});

describe('loading bad experiments', () => {
  it('writes nothing: the fixture folder and the working directory are unchanged', async () => {
    const before = [await readdir(experiments), await readdir(cwd)];
    for (const name of ['bad-types.yaml', 'unknown-plugin.yaml', 'duplicate-tasks.yaml'])
      await issuesOf(name);
    expect([await readdir(experiments), await readdir(cwd)]).toEqual(before);
  });
});
