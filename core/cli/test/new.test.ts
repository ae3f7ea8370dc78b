import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaffoldKinds } from '../src/scaffold/package-name.js';
import { runCli } from './run-cli.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'longhaul-new-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function folder(name: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  return dir;
}

const json = async (file: string) => JSON.parse(await readFile(file, 'utf8'));

describe('longhaul new: bad input is one line, exit 2, and nothing written', () => {
  const kinds = 'expected one of harness, environment, script, scorer, memory, source, reporter';
  const npmRule =
    'it must be lowercase letters, digits and - . _ ~, optionally scoped (@scope/name), not starting with . or _';
  // What is asked, and the line it gets (after `longhaul new: `) for a run in the folder `dir`.
  const cases: [string, string[], (dir: string) => string][] = [
    ['an unknown kind', ['new', 'widget', 'my-widget'], () => `unknown kind 'widget': ${kinds}`],
    ['executor, which has no template', ['new', 'executor', 'q'], () => `unknown kind 'executor': ${kinds}`],
    [
      'a package name npm refuses',
      ['new', 'harness', 'My_Agent'],
      () => `invalid package name 'My_Agent': ${npmRule}`,
    ],
    ['a scope without a name', ['new', 'scorer', '@me/'], () => `invalid package name '@me/': ${npmRule}`],
    [
      'a name whose plugin id would hold a character ids may not',
      ['new', 'memory', 'notes~2'],
      () => "invalid package name 'notes~2': the plugin id 'notes~2' may hold only letters, digits and . _ -",
    ],
    [
      'a folder that is not empty',
      ['new', 'harness', 'a', 'taken'],
      (dir) => `${dir}/taken exists and is not empty`,
    ],
    [
      'a file where the folder goes',
      ['new', 'harness', 'a', 'file.txt'],
      (dir) => `${dir}/file.txt exists and is not a folder`,
    ],
  ];
  for (const [what, argv, message] of cases) {
    it(what, async () => {
      const dir = await folder(`bad-${what.replaceAll(' ', '-')}`);
      await mkdir(join(dir, 'taken'));
      await writeFile(join(dir, 'taken', 'keep.txt'), 'mine');
      await writeFile(join(dir, 'file.txt'), 'mine');
      const result = await runCli(argv, dir);
      expect(result).toEqual({ code: 2, stdout: '', stderr: `longhaul new: ${message(dir)}\n` });
      expect((await readdir(dir)).sort()).toEqual(['file.txt', 'taken']);
      expect(await readdir(join(dir, 'taken'))).toEqual(['keep.txt']);
    });
  }
});

describe('longhaul new', () => {
  it('outside a workspace, writes a package of its own that links longhaul’s install by file: path', async () => {
    const dir = await folder('standalone');
    const result = await runCli(['new', 'harness', '@me/longhaul-harness-relay'], dir);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(
      new RegExp(
        `^wrote harness 'relay' to ${dir}/longhaul-harness-relay \\(a package of its own, \\d+ files\\)\n`,
      ),
    );
    const pkg = join(dir, 'longhaul-harness-relay');
    expect(result.stdout).toContain(`next:\n  cd ${pkg}\n  npm install\n  npm run build && npm test\n`);
    const manifest = await json(join(pkg, 'package.json'));
    expect(manifest).toMatchObject({
      name: '@me/longhaul-harness-relay',
      longhaul: { plugins: [{ kind: 'harness', id: 'relay' }] },
      scripts: { build: 'tsc -p tsconfig.build.json', test: 'vitest run' },
    });
    expect(manifest.peerDependencies).toBeUndefined();
    // Each dependency is a file: link to a folder that holds that very package.
    const links = { ...manifest.dependencies, ...manifest.devDependencies } as Record<string, string>;
    expect(Object.keys(links).sort()).toEqual([
      '@longhaul/core',
      '@longhaul/testkit',
      '@types/node',
      'typescript',
      'vitest',
      'zod',
    ]);
    for (const [name, spec] of Object.entries(links)) {
      expect(spec).toMatch(/^file:\//);
      expect((await json(join(spec.slice('file:'.length), 'package.json'))).name).toBe(name);
    }
    expect((await json(join(pkg, 'tsconfig.json'))).extends).toBeUndefined();
    const files = await readdir(pkg, { recursive: true });
    expect(files).toEqual(
      expect.arrayContaining(['.gitignore', 'README.md', 'src/index.ts', 'test/harness.test.ts']),
    );
    expect(files).not.toContain('install-note.md');
    const readme = await readFile(join(pkg, 'README.md'), 'utf8');
    expect(readme).toMatch(/^# @me\/longhaul-harness-relay\n/);
    expect(readme).toContain('by `file:` path to the longhaul install that wrote it');
    expect(readme).not.toMatch(/\{\{\w+\}\}/);
    expect(await readFile(join(pkg, 'src/index.ts'), 'utf8')).toContain("id: 'relay',");
    expect(await readFile(join(pkg, 'example/experiment.yaml'), 'utf8')).toContain('name: "relay-example"');
  });

  it('inside a workspace folder its patterns match, writes a member depending on the workspace’s versions', async () => {
    const repo = await folder('repo');
    await writeFile(join(repo, 'package.json'), JSON.stringify({ workspaces: ['plugins/*', 'tools/one'] }));
    const core = await json(join(import.meta.dirname, '../../kernel/package.json'));
    const testkit = await json(join(import.meta.dirname, '../../testkit/package.json'));
    for (const where of ['plugins/scorer-size', 'tools/one']) {
      const result = await runCli(['new', 'scorer', 'scorer-size', where], repo);
      expect(result.stdout).toContain(`to ${join(repo, where)} (a workspace member,`);
      expect(result.stdout).toContain(`next:\n  cd ${repo} && npm install\n  cd ${join(repo, where)}\n`);
      const manifest = await json(join(repo, where, 'package.json'));
      expect(manifest).toMatchObject({
        peerDependencies: { '@longhaul/core': `^${core.version}` },
        dependencies: { zod: core.dependencies.zod },
        devDependencies: { '@longhaul/core': core.version, '@longhaul/testkit': testkit.version },
        exports: { '.': { '@longhaul/source': './src/index.ts' } },
        longhaul: { plugins: [{ kind: 'scorer', id: 'size' }] },
      });
      const up = where
        .split('/')
        .map(() => '..')
        .join('/');
      expect((await json(join(repo, where, 'tsconfig.json'))).extends).toBe(`${up}/tsconfig.base.json`);
      expect(await readFile(join(repo, where, 'vitest.config.ts'), 'utf8')).toBe(
        `export { default } from '${up}/vitest.shared.js';\n`,
      );
    }
    // A folder no pattern matches is a package of its own, even inside the workspace's folder.
    const outside = await runCli(['new', 'scorer', 'scorer-size', 'docs/size'], repo);
    expect(outside.stdout).toContain('(a package of its own,');
  });

  it('writes into an existing empty folder', async () => {
    const dir = await folder('empty/target');
    const result = await runCli(['new', 'reporter', 'csv', '.'], dir);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect((await readdir(dir)).sort()).toEqual(
      [
        '.gitignore',
        'README.md',
        'example',
        'package.json',
        'src',
        'test',
        'tsconfig.build.json',
        'tsconfig.json',
        'vitest.config.ts',
      ].sort(),
    );
  });

  // The README's example experiment names the plugin by its id, as a user would copy it.
  it.each(scaffoldKinds)('writes a README whose example names the %s by its id', async (kind) => {
    const dir = await folder(`readme/${kind}`);
    const result = await runCli(['new', kind, `my-${kind}`, '.'], dir);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const readme = await readFile(join(dir, 'README.md'), 'utf8');
    expect(readme).not.toMatch(/\{\s*\{/);
    const example = readme.split('```yaml\n')[1]?.split('```')[0] ?? '';
    expect(example).toContain(`my-${kind}`);
  });
});
