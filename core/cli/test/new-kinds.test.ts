import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaffoldKinds } from '../src/scaffold/package-name.js';
import { repoRoot } from './install-copy.js';
import { runCli } from './run-cli.js';

const run = promisify(execFile);

// Every kind in both layouts, in one folder: `plugins/<kind>` are members of a workspace like the
// repository's (its tsconfig.base.json, vitest.shared.ts and vitest.tmpdir.ts), `outside/<kind>`
// packages of their own. One node_modules serves both: the repository's, as `npm install` would
// link it.
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'longhaul-new-kinds-'));
  await writeFile(join(root, 'package.json'), JSON.stringify({ private: true, workspaces: ['plugins/*'] }));
  for (const file of ['tsconfig.base.json', 'vitest.shared.ts', 'vitest.tmpdir.ts'])
    await copyFile(join(repoRoot, file), join(root, file));
  await symlink(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
  for (const kind of scaffoldKinds) {
    for (const [dir, name] of [
      [`plugins/${kind}`, `@me/${kind}-in`],
      [`outside/${kind}`, `${kind}-out`],
    ] as const) {
      const result = await runCli(['new', kind, name, dir], root);
      expect(result, `longhaul new ${kind} ${name} ${dir}`).toMatchObject({ code: 0, stderr: '' });
    }
  }
}, 120_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Runs a program of the repository's node_modules in `root`, failing with its output. */
async function node(script: string, args: string[]): Promise<string> {
  // The inner vitest must not take this run's worker variables for its own.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')));
  try {
    const { stdout } = await run(process.execPath, [join(repoRoot, 'node_modules', script), ...args], {
      cwd: root,
      env: { ...env, NO_COLOR: '1', CI: '1' },
      maxBuffer: 32 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${script} ${args.join(' ')} failed:\n${failed.stdout ?? ''}${failed.stderr ?? failed.message}`,
    );
  }
}

describe('longhaul new, every kind, inside a workspace and outside one', () => {
  // One tsc per layout, with the options of the generated tsconfig.json, over all kinds at once.
  for (const layout of ['plugins', 'outside']) {
    it(`the ${layout === 'plugins' ? 'workspace members' : 'packages of their own'} typecheck, tests included`, async () => {
      const config = join(root, `tsconfig.${layout}.json`);
      await writeFile(
        config,
        JSON.stringify({
          extends: `./${layout}/harness/tsconfig.json`,
          include: [`${layout}/*/src`, `${layout}/*/test`],
        }),
      );
      await node('typescript/bin/tsc', ['-p', config]);
    }, 600_000);
  }

  // Every kind's tests, and the workspace layout's vitest config once (the sources are the same).
  it('their generated tests pass, each with its own vitest config', async () => {
    await writeFile(
      join(root, 'vitest.config.mjs'),
      "export default { test: { projects: ['outside/*', 'plugins/harness'] } };\n",
    );
    const output = await node('vitest/vitest.mjs', ['run', '--config', 'vitest.config.mjs']);
    expect(output).toMatch(/Test Files +8 passed \(8\)/);
    for (const kind of scaffoldKinds) {
      for (const project of kind === 'harness' ? ['@me/harness-in', 'harness-out'] : [`${kind}-out`]) {
        expect(output).toMatch(new RegExp(`✓ \\|${project}\\| test/${kind}\\.test\\.ts`));
      }
    }
  }, 900_000);
});
