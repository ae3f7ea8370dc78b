import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCopy, repoRoot } from './install-copy.js';

const run = promisify(execFile);

let root: string;
let bin: string;
let elsewhere: string;
let project: string;

async function longhaul(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, ...args], {
      cwd: elsewhere,
      env: { ...process.env, NO_COLOR: '1', CI: '' },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

// An install outside the repository, an experiment in a project of its own, and a third folder
// the commands run from: plugins must be found beside the CLI, not from the working directory.
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'longhaul-anywhere-'));
  bin = await installCopy(join(root, 'install'));
  project = join(root, 'project');
  elsewhere = join(root, 'elsewhere');
  await mkdir(project);
  await mkdir(elsewhere);
  const quickstart = await readFile(join(repoRoot, 'examples', 'quickstart.yaml'), 'utf8');
  await writeFile(
    join(project, 'quickstart.yaml'),
    quickstart.replace('path: ../problems', `path: ${join(repoRoot, 'problems')}`),
  );
}, 120_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('longhaul installed outside the repository, run from a third folder', () => {
  it('lists the plugins installed beside it', async () => {
    const result = await longhaul(['plugins']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`\\nharness +oracle +@longhaul/harness-oracle@[^ ]+ +longhaul ${join(root, 'install')}/`),
    );
    expect(result.stdout).toMatch(/\nenvironment +local +@longhaul\/environment-local@/);
  });

  it('validates and runs the quickstart from another folder', async () => {
    const file = join(project, 'quickstart.yaml');
    const validated = await longhaul(['validate', file]);
    expect(validated.code).toBe(0);
    // Then what the local environment guarantees on this host, one line.
    expect(validated.stdout).toMatch(
      new RegExp(`^${file}: valid: 1 task, 1 condition, 1 trial\nenvironment local .*\n$`),
    );
    const runDir = join(root, 'run');
    const ran = await longhaul(['run', file, '--run-dir', runDir]);
    expect(ran.stderr).not.toMatch(/not installed|cannot be used/);
    expect(ran.code).toBe(0);
    const summary = JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8'));
    expect(JSON.stringify(summary)).toMatch(/tests\.strict/);
  }, 600_000);
});
