import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, type Harness, PluginRegistry, tokens } from '@longhaul/core';
import { Container } from 'inversify';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtures, makeProject } from '../fixtures/config/project.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function project(installed: string[]) {
  const made = await makeProject(installed);
  cleanups.push(made.remove);
  return made.dir;
}

/** Discovery from a fixture project only (not beside the kernel, which is the repository). */
function discover(opts: Parameters<typeof PluginRegistry.discover>[0]): Promise<PluginRegistry> {
  return PluginRegistry.discover({ installDir: null, ...opts });
}

/** Discovery, then every installed package imported. */
async function discoverAll(opts: Parameters<typeof PluginRegistry.discover>[0]): Promise<PluginRegistry> {
  return (await discover(opts)).load('all');
}

async function discoverError(opts: Parameters<typeof PluginRegistry.discover>[0]): Promise<ConfigError> {
  const error = await discover(opts).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('PluginRegistry.discover', () => {
  it('finds plugin packages in node_modules by their "longhaul" field, importing one when asked', async () => {
    const cwd = await project(['harness-echo']);
    const registry = await discover({ cwd: join(cwd) });
    expect(registry.declared()).toEqual([
      {
        kind: 'harness',
        id: 'echo',
        description: 'Repeats the prompt back',
        packageName: '@fixture/harness-echo',
        version: '2.0.0',
        dir: await realpath(join(cwd, 'node_modules', '@fixture', 'harness-echo')),
        origin: 'cwd',
      },
    ]);
    expect(registry.list()).toEqual([]);
    await registry.load([{ kind: 'harness', id: 'echo' }]);
    expect(
      registry.list().map((p) => [p.definition.kind, p.definition.id, p.packageName, p.version]),
    ).toEqual([['harness', 'echo', '@fixture/harness-echo', '2.0.0']]);
    expect(registry.get('harness', 'echo')?.definition.description).toBe('Repeats the prompt back');
    expect(registry.get('harness', 'nope')).toBeUndefined();
  });

  it('ignores packages without a "longhaul" field (zod is installed in every fixture project)', async () => {
    const registry = await discoverAll({ cwd: await project([]) });
    expect(registry.declared()).toEqual([]);
  });

  it('loads local plugin folders and packages named by an experiment, relative to its directory', async () => {
    const cwd = await project([]);
    const registry = await discover({
      cwd,
      baseDir: join(fixtures, 'experiments'),
      extra: ['../plugins/harnesses', '../plugins/scratch-memory'],
    });
    expect(registry.list('harness').map((p) => p.definition.id)).toEqual(['agent', 'echo']);
    const scratch = registry.get('memory', 'scratch');
    expect(scratch).toMatchObject({ packageName: '../plugins/scratch-memory', version: '0.0.0' });
    expect(scratch?.dir).toBe(join(fixtures, 'plugins', 'scratch-memory'));
  });

  it('leaves out a kind and id two installed packages define, naming both', async () => {
    const registry = await discoverAll({
      cwd: await project(['harness-echo', 'harness-echo-copy']),
    });
    expect(registry.declared()).toEqual([]);
    expect(registry.get('harness', 'echo')).toBeUndefined();
    const problems = registry.problems('harness', 'echo');
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toMatch(/harness 'echo' is defined by two packages/);
    expect(problems[0]?.message).toContain("'@fixture/harness-echo'");
    expect(problems[0]?.message).toContain("'harness-echo-copy'");
  });

  it('keeps the problem of an installed package that fails to import, without stopping the others', async () => {
    const registry = await discoverAll({ cwd: await project(['broken', 'harness-echo']) });
    expect(registry.list().map((p) => p.definition.id)).toEqual(['echo']);
    expect(registry.problems('harness')).toEqual([]);
    const [problem] = registry.problems('reporter', 'broken');
    expect(problem?.file).toMatch(/node_modules\/@fixture\/installed-broken\/package\.json$/);
    expect(problem?.message).toMatch(
      /plugin package '@fixture\/installed-broken' failed to import .*a-package-that-is-not-installed/,
    );
  });

  it('keeps the problem of a package whose entry module is missing (not built)', async () => {
    const registry = await discoverAll({ cwd: await project(['unbuilt']) });
    expect(registry.problems('harness', 'unbuilt')[0]?.message).toMatch(
      /^plugin package '@fixture\/unbuilt' has no entry module at .*\/@fixture\/unbuilt\/dist\/index\.js \(is it built\?/,
    );
  });

  it('keeps the problem of a package without a default export', async () => {
    const registry = await discoverAll({ cwd: await project(['no-default']) });
    expect(registry.problems()[0]?.message).toMatch(/'@fixture\/installed-no-default' has no default export/);
  });

  it('keeps the problems of exports that do not match the package.json manifest, both ways', async () => {
    const registry = await discoverAll({ cwd: await project(['mismatch']) });
    expect(registry.get('harness', 'other')).toBeUndefined();
    expect(registry.problems('harness', 'declared').map((issue) => issue.message)).toEqual([
      `package '@fixture/mismatch' declares harness 'declared' in package.json "longhaul" but does not export it`,
      `package '@fixture/mismatch' exports harness 'other' that its package.json "longhaul" field does not declare`,
    ]);
  });

  it('fails on any problem of a plugin the experiment names, collecting all of them', async () => {
    const error = await discoverError({
      cwd: await project(['harness-echo']),
      baseDir: fixtures,
      extra: [
        './plugins/no-default',
        './plugins/broken',
        './installed/harness-echo-copy',
        './installed/harness-echo',
      ],
    });
    expect(error.issues.map((issue) => [issue.key, issue.message.split(':')[0]])).toEqual([
      ['plugins[0]', expect.stringMatching(/^plugin package '@fixture\/no-default' has no default export/)],
      ['plugins[1]', expect.stringMatching(/^plugin package '.\/plugins\/broken' failed to import/)],
      ['plugins[3]', "harness 'echo' is defined by two packages"],
    ]);
  });

  it("lets the experiment's own plugin shadow an installed one of the same kind and id", async () => {
    const registry = await discover({
      cwd: await project(['harness-echo']),
      baseDir: fixtures,
      extra: ['./installed/harness-echo-copy'],
    });
    expect(registry.get('harness', 'echo')?.packageName).toBe('harness-echo-copy');
    expect(
      registry
        .declared('harness')
        .filter((p) => p.id === 'echo')
        .map((p) => [p.packageName, p.origin]),
    ).toEqual([['harness-echo-copy', 'plugins-entry']]);
    expect(registry.problems()).toEqual([]);
  });

  it("finds plugins in the experiment's project, the working directory and beside longhaul, nearest first", async () => {
    const experimentProject = await project(['harness-echo']);
    const cwd = await project(['mismatch']);
    const install = await project(['harness-echo-copy', 'no-default']);
    const registry = await PluginRegistry.discover({ cwd, baseDir: experimentProject, installDir: install });
    expect(registry.declared().map((p) => [p.kind, p.id, p.packageName, p.origin])).toEqual([
      // harness-echo-copy beside longhaul declares echo too, but the project's is nearer.
      ['harness', 'declared', '@fixture/mismatch', 'cwd'],
      ['harness', 'echo', '@fixture/harness-echo', 'project'],
      ['scorer', 'lonely', '@fixture/installed-no-default', 'install'],
    ]);
  });

  it('reads the commands a manifest declares without importing anything', async () => {
    const cwd = await realpath(await project(['commands']));
    const registry = await discover({ cwd });
    expect(registry.commands()).toEqual([
      {
        name: 'greet',
        description: 'Say hello',
        packageName: '@fixture/commands',
        dir: join(cwd, 'node_modules', '@fixture', 'commands'),
        module: join(cwd, 'node_modules', '@fixture', 'commands', 'commands.js'),
        origin: 'cwd',
      },
    ]);
    expect(registry.declared()).toEqual([]);
  });

  it('points at the experiment entry for a missing plugin path', async () => {
    const error = await discoverError({
      cwd: await project([]),
      baseDir: fixtures,
      extra: ['./no-such-folder', 'no-such-package'],
      locateExtra: (index) => ({ file: 'exp.yaml', line: 3 + index, column: 5, key: `plugins[${index}]` }),
    });
    expect(error.issues).toEqual([
      expect.objectContaining({
        file: 'exp.yaml',
        line: 3,
        column: 5,
        key: 'plugins[0]',
        message: `plugin path does not exist: ${join(fixtures, 'no-such-folder')}`,
      }),
      expect.objectContaining({
        line: 4,
        key: 'plugins[1]',
        message: expect.stringMatching(/'no-such-package' is not installed/),
      }),
    ]);
  });
});

describe('PluginRegistry.instantiate', () => {
  it('builds the plugin in a child container with its parsed options and the parent services', async () => {
    const registry = await discoverAll({ cwd: await project(['harness-echo']) });
    const parent = new Container();
    parent.bind(tokens.Run).toConstantValue({ runId: 'r1', runDir: '/tmp/r1', baseDir: '/tmp' });
    const harness = registry.instantiate<Harness & { prefix: string; run: { runId: string } }>(
      parent,
      'harness',
      {
        id: 'echo',
        options: {},
      },
    );
    expect(harness.prefix).toBe('> ');
    expect(harness.run.runId).toBe('r1');
    const custom = registry.instantiate<{ prefix: string }>(parent, 'harness', {
      id: 'echo',
      options: { prefix: '$ ' },
    });
    expect(custom.prefix).toBe('$ ');
    // Each use gets its own child container: the parent is left without a harness binding.
    expect(parent.isBound(tokens.Harness)).toBe(false);
  });

  it('refuses an unknown plugin and options its schema rejects', async () => {
    const registry = await discoverAll({ cwd: await project(['harness-echo']) });
    expect(() => registry.instantiate(new Container(), 'harness', { id: 'missing' })).toThrow(
      /no harness plugin 'missing' is loaded \(loaded: echo\)/,
    );
    expect(() =>
      registry.instantiate(new Container(), 'harness', { id: 'echo', options: { prefix: 3 } }),
    ).toThrow(ConfigError);
  });
});
