import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCopy } from './install-copy.js';

const exec = promisify(execFile);

let root: string;
let install: string;
let bin: string;
let agent: string;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program in `cwd` as a user would, outside this test's vitest (no VITEST variables). */
async function run(program: string, args: string[], cwd: string): Promise<Ran> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')));
  try {
    const { stdout, stderr } = await exec(program, args, {
      cwd,
      env: { ...env, NO_COLOR: '1', CI: '' },
      maxBuffer: 32 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const longhaul = (args: string[], cwd: string) => run(process.execPath, [bin, ...args], cwd);

// longhaul installed in one temporary folder, the new plugin written in another: nothing of the
// repository is on the way but the third-party packages the install links (as npm would install them).
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'longhaul-new-anywhere-')));
  install = join(root, 'install');
  bin = await installCopy(install);
  await mkdir(join(root, 'work'));
  agent = join(root, 'work', 'my-agent');
}, 300_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('longhaul new harness my-agent, outside the repository', () => {
  it('writes a package that installs offline, builds, passes its tests and runs through plugins:', async () => {
    const made = await longhaul(['new', 'harness', 'my-agent'], join(root, 'work'));
    expect(made.stderr).toBe('');
    expect(made.stdout).toContain(`wrote harness 'my-agent' to ${agent} (a package of its own,`);
    const manifest = JSON.parse(await readFile(join(agent, 'package.json'), 'utf8'));
    // longhaul's own packages come from the install that wrote it, never from the repository.
    expect(manifest.dependencies['@longhaul/core']).toBe(`file:${install}/node_modules/@longhaul/core`);
    expect(manifest.devDependencies['@longhaul/testkit']).toBe(
      `file:${install}/node_modules/@longhaul/testkit`,
    );

    // --offline: npm may not reach a registry; every dependency is a file: link.
    const installed = await run('npm', ['install', '--offline', '--no-audit', '--no-fund'], agent);
    expect(installed.code, installed.stderr).toBe(0);

    const built = await run('npm', ['run', 'build'], agent);
    expect(built.code, built.stdout + built.stderr).toBe(0);

    const tested = await run('npm', ['test'], agent);
    expect(tested.code, tested.stdout + tested.stderr).toBe(0);
    expect(tested.stdout).toMatch(/Tests +\d+ passed/);

    const validated = await longhaul(['validate', 'example/experiment.yaml'], agent);
    // Then what the local environment guarantees on this host, one line.
    expect(validated.stdout).toMatch(
      /^example\/experiment.yaml: valid: 1 task, 1 condition, 1 trial\nenvironment local \(isolation: none\): .*\n$/,
    );
    const ran = await longhaul(['run', 'example/experiment.yaml', '--run-dir', join(root, 'run')], agent);
    expect(ran.stderr).not.toMatch(/not installed|cannot be used|error/);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/my-agent\/checkpoints\/none +1 +1 +1 +0 +0 +100\.0%/);
    const summary = JSON.parse(await readFile(join(root, 'run', 'summary.json'), 'utf8'));
    expect(JSON.stringify(summary)).toMatch(/"tests\.strict":1/);
  }, 900_000);
});
