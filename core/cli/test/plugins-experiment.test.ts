import { copyFile, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './install-copy.js';
import { runCli } from './run-cli.js';

// A scorer of the user's own, made by `longhaul new` as a member of a workspace like the
// repository's (one node_modules: the repository's, as `npm install` would link it). Its
// example experiment loads it through `plugins: [..]`; nothing installs it.
let root: string;
let plugin: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'longhaul-plugins-experiment-')));
  await writeFile(join(root, 'package.json'), JSON.stringify({ private: true, workspaces: ['plugins/*'] }));
  await copyFile(join(repoRoot, 'tsconfig.base.json'), join(root, 'tsconfig.base.json'));
  await symlink(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
  const made = await runCli(['new', 'scorer', 'todo-count', 'plugins/todo-count'], root);
  expect(made, 'longhaul new scorer todo-count').toMatchObject({ code: 0, stderr: '' });
  plugin = join(root, 'plugins', 'todo-count');
}, 120_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const experiment = 'example/experiment.yaml';

describe('longhaul plugins, schema --experiment: the plugins an experiment loads through plugins:', () => {
  it('plugins show without --experiment says which experiment here loads it', async () => {
    const result = await runCli(['plugins', 'show', 'todo-count'], plugin);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "plugins show: todo-count: no plugin 'todo-count' is installed; example/experiment.yaml loads it through plugins: (longhaul plugins show todo-count --experiment example/experiment.yaml)\n1 problem found\n",
    });
  });

  it("plugins show --experiment prints the plugin's options", async () => {
    const result = await runCli(['plugins', 'show', 'todo-count', '--experiment', experiment], plugin);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe(`scorer todo-count (todo-count@0.1.0, ${plugin})`);
    expect(lines.slice(3, 5)).toEqual([
      expect.stringMatching(/^OPTION +TYPE +DEFAULT +DESCRIPTION$/),
      expect.stringMatching(/^extensions +string\[\] +Count only files with these extensions/),
    ]);
    // Written before the subcommand, it is the same option.
    expect(await runCli(['plugins', '--experiment', experiment, 'show', 'todo-count'], plugin)).toEqual(
      result,
    );
  });

  it('plugins --experiment lists it, from plugins:, beside the installed ones', async () => {
    const result = await runCli(['plugins', 'scorer', '--experiment', experiment], plugin);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(
      new RegExp(`\\nscorer +todo-count +todo-count@0\\.1\\.0 +plugins: ${plugin} `),
    );
    expect(result.stdout).toMatch(/\nscorer +tests +@longhaul\/scorer-tests@/);
    expect((await runCli(['plugins', 'scorer'], plugin)).stdout).not.toContain('todo-count');
  });

  it('schema --experiment offers it and its options in scorers:', async () => {
    const refs = async (args: string[]) => {
      const result = await runCli(['schema', ...args], plugin);
      expect(result.code, result.stderr).toBe(0);
      return JSON.stringify(JSON.parse(result.stdout).$defs.scorerRef);
    };
    const withIt = await refs(['--experiment', experiment]);
    expect(withIt).toContain('{"const":"todo-count","description":"Size of the workspace after each step');
    expect(withIt).toMatch(/"const":"todo-count"}.*"extensions":\{[^}]*"type":"array"/);
    expect(await refs([])).not.toContain('todo-count');
  });

  it('says where an experiment names a plugin that cannot be loaded', async () => {
    await writeFile(join(plugin, 'broken.yaml'), 'name: broken\nplugins:\n  - ./no-such-folder\n');
    const result = await runCli(['plugins', '--experiment', 'broken.yaml'], plugin);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^broken\.yaml:3:5: plugins\[0\]: .*no-such-folder/);
  });
});
