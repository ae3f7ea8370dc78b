import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './install-copy.js';
import { type LocalRegistry, startLocalRegistry } from './local-registry.js';

const run = promisify(execFile);

// Every workspace package is published to a local registry (Verdaccio) and installed from it
// with plain `npm install` into an empty folder outside the repository, as a user gets them.
// Third-party packages come from npm's cache (filled by the repository's `npm ci`) or npm's registry.
let root: string;
let registry: LocalRegistry;
let user: string;

/** The environment of the npm commands: not the test runner's npm or vitest variables. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(npm_|VITEST|NODE_OPTIONS$)/i.test(key)),
  );
  return { ...env, NO_COLOR: '1' };
}

async function sh(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd,
      env: cleanEnv(),
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Runs a command that must succeed, failing with its output when it does not. */
async function ok(command: string, args: string[], cwd: string): Promise<string> {
  const result = await sh(command, args, cwd);
  if (result.code !== 0)
    throw new Error(
      `${command} ${args.join(' ')} (in ${cwd}) exited ${result.code}:\n${result.stdout}${result.stderr}`,
    );
  return result.stdout;
}

interface Manifest {
  name: string;
  private?: boolean;
  bin?: Record<string, string>;
  exports?: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

async function workspacePackages(): Promise<{ dir: string; manifest: Manifest }[]> {
  const { stdout } = await run('npm', ['query', '.workspace'], { cwd: repoRoot, env: cleanEnv() });
  const found = JSON.parse(stdout) as { realpath: string }[];
  return Promise.all(
    found.map(async ({ realpath }) => ({
      dir: realpath,
      manifest: JSON.parse(await readFile(join(realpath, 'package.json'), 'utf8')) as Manifest,
    })),
  );
}

/** What a user installs for the quickstart and a plugin of their own. */
const installed = [
  '@longhaul/cli',
  '@longhaul/harness-oracle',
  '@longhaul/source-longhaul',
  '@longhaul/scorer-tests',
  '@longhaul/environment-local',
  '@longhaul/scripts',
  '@longhaul/memory-basic',
  '@longhaul/reporter-summary',
];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'longhaul-registry-'));
  await mkdir(join(root, 'registry'));
  registry = await startLocalRegistry(join(root, 'registry'));
  await ok(
    'npm',
    [
      'publish',
      '--workspaces',
      '--registry',
      registry.url,
      '--userconfig',
      registry.userconfig,
      '--ignore-scripts',
      '--provenance=false',
    ],
    repoRoot,
  );
  user = join(root, 'user');
  await mkdir(user);
  await writeFile(join(user, '.npmrc'), `@longhaul:registry=${registry.url}\nprefer-offline=true\n`);
  await writeFile(join(user, 'package.json'), `${JSON.stringify({ name: 'my-evals', private: true })}\n`);
  await ok('npm', ['install', '--no-audit', '--no-fund', ...installed], user);
}, 600_000);

afterAll(async () => {
  await registry?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('the packages as published', () => {
  it('every workspace package is on the registry', async () => {
    const missing: string[] = [];
    for (const { manifest } of await workspacePackages()) {
      if (manifest.private) continue;
      const response = await fetch(`${registry.url}${manifest.name.replace('/', '%2f')}`);
      if (!response.ok) missing.push(`${manifest.name}: ${response.status}`);
    }
    expect(missing).toEqual([]);
  });

  // What `npm pack` would put in each tarball holds every export and bin, and every package the
  // built code imports is a dependency or a peer: a user's install has nothing else.
  it('each tarball holds its exports and declares what its code imports', async () => {
    const packed = JSON.parse(
      await ok('npm', ['pack', '--dry-run', '--json', '--workspaces', '--ignore-scripts'], repoRoot),
    ) as { name: string; files: { path: string }[] }[];
    const problems: string[] = [];
    for (const { dir, manifest } of await workspacePackages()) {
      if (manifest.private) continue;
      const files = new Set(
        packed.find((entry) => entry.name === manifest.name)?.files.map((file) => file.path),
      );
      const targets = [
        ...Object.values(manifest.bin ?? {}),
        ...Object.values(manifest.exports ?? {}).flatMap((target) =>
          typeof target === 'string'
            ? [target]
            : Object.entries(target)
                .filter(([condition]) => condition !== '@longhaul/source')
                .map(([, path]) => path),
        ),
      ];
      for (const target of targets) {
        if (!files.has(target.replace(/^\.\//, '')))
          problems.push(`${manifest.name}: ${target} is not in the tarball`);
      }
      const declared = new Set([
        manifest.name,
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {}),
        ...Object.keys(manifest.optionalDependencies ?? {}),
      ]);
      for (const file of files) {
        if (!file.endsWith('.js')) continue;
        const code = await readFile(join(dir, file), 'utf8');
        for (const match of code.matchAll(
          /(?:^import\b[^'"]*?\bfrom|^import|\bimport\()\s*['"]([^'"./][^'"]*)['"]/gm,
        )) {
          const specifier = match[1]!;
          if (specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
          const name = specifier
            .split('/')
            .slice(0, specifier.startsWith('@') ? 2 : 1)
            .join('/');
          if (!declared.has(name))
            problems.push(`${manifest.name}: ${file} imports ${name}, not a dependency`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('installed from the registry into an empty folder, with plain npm install', () => {
  it('runs the quickstart through npx longhaul', async () => {
    await mkdir(join(user, 'examples'));
    await cp(join(repoRoot, 'examples', 'quickstart.yaml'), join(user, 'examples', 'quickstart.yaml'));
    await cp(join(repoRoot, 'problems', 'worklog'), join(user, 'problems', 'worklog'), { recursive: true });
    const result = await sh('npx', ['longhaul', 'run', 'examples/quickstart.yaml'], user);
    expect(result.stderr).not.toMatch(/error|not installed|cannot find/i);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\noracle\/checkpoints\/none +1 +4 +4 +0 +0 +100\.0%/);
    expect(result.stdout).toContain(`summary: ${join(user, 'runs', 'quickstart-')}`);
  });

  it('writes a plugin with longhaul new, which builds and runs in its example experiment', async () => {
    const created = await sh('npx', ['longhaul', 'new', 'scorer', 'todo-count'], user);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const plugin = join(user, 'todo-count');
    await ok('npm', ['install', '--no-audit', '--no-fund'], plugin);
    await ok('npm', ['run', 'build'], plugin);
    const result = await sh('npx', ['longhaul', 'run', 'todo-count/example/experiment.yaml'], user);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\noracle\/checkpoints\/none +1 +1 +1 +0 +0 +100\.0%/);
    const summary = JSON.parse(await readFile(result.stdout.match(/\nsummary: (.+)\n/)![1]!, 'utf8')) as {
      trials: { steps: { scores: Record<string, number> }[] }[];
    };
    expect(Object.keys(summary.trials[0]!.steps[0]!.scores)).toEqual(
      expect.arrayContaining(['todo-count.files', 'todo-count.lines']),
    );
  });
});
