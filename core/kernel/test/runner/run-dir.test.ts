import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, resumeRun, startRun } from '@longhaul/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, makeFixture } from './fixture.js';

/** The error a promise rejects with, as `file: message` lines. */
async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).issues.map((issue) => `${issue.file}: ${issue.message}`).join('\n');
}

/** Mounts a tmpfs (root only): the real read-only and full file systems the errors are about. */
function mountTmpfs(dir: string, options: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

let fixture: Fixture;
beforeAll(async () => {
  fixture = await makeFixture({ steps: 1 });
});
afterAll(() => rm(fixture.dir, { recursive: true, force: true }));

describe('a run directory that cannot be used is a one-line error, and nothing is left behind', () => {
  it('a file given as the run directory', async () => {
    const file = join(fixture.dir, 'a-file');
    await writeFile(file, 'not a directory\n');
    expect(await failure(startRun(fixture.experiment, { runDir: file }))).toBe(
      `${file}: is a file, not a directory; give --run-dir a new or empty directory`,
    );
    expect(await readFile(file, 'utf8')).toBe('not a directory\n');
  });

  it('a run directory below a file', async () => {
    const dir = join(fixture.dir, 'a-file', 'run');
    expect(await failure(startRun(fixture.experiment, { runDir: dir }))).toMatch(
      /cannot read the run directory: a part of the path is a file, not a directory \(ENOTDIR\)/,
    );
  });

  it('a run directory where nothing can be made (under /proc: Node’s recursive mkdir would spin there)', async () => {
    const dir = '/proc/longhaul-no-such-run/run';
    expect(await failure(startRun(fixture.experiment, { runDir: dir }))).toBe(
      `${dir}: cannot create the run directory: no such file or directory (ENOENT); choose a writable directory with --run-dir`,
    );
  });

  const canMount = process.getuid?.() === 0;
  it.skipIf(!canMount)('a read-only file system', async (context) => {
    const mountPoint = join(fixture.dir, 'read-only');
    await mkdir(mountPoint);
    if (!mountTmpfs(mountPoint, 'ro,size=64k')) context.skip('tmpfs cannot be mounted here');
    try {
      const dir = join(mountPoint, 'runs', 'run');
      expect(await failure(startRun(fixture.experiment, { runDir: dir }))).toBe(
        `${dir}: cannot create the run directory: the file system is read-only (EROFS); choose a writable directory with --run-dir`,
      );
    } finally {
      execFileSync('umount', [mountPoint]);
    }
  });

  it.skipIf(!canMount)(
    'a full disk at start: the directory made for the run is removed again',
    async (context) => {
      const mountPoint = join(fixture.dir, 'full');
      await mkdir(mountPoint);
      if (!mountTmpfs(mountPoint, 'size=8k')) context.skip('tmpfs cannot be mounted here');
      try {
        await writeFile(join(mountPoint, 'fill'), Buffer.alloc(8192)).catch(() => {});
        const dir = join(mountPoint, 'runs', 'run');
        expect(await failure(startRun(fixture.experiment, { runDir: dir }))).toBe(
          `${dir}: cannot create the run directory: no space left on the device (ENOSPC); free some space or choose another directory with --run-dir`,
        );
        expect(await readdir(mountPoint)).toEqual(['fill']);
      } finally {
        execFileSync('umount', [mountPoint]);
      }
    },
  );
});

describe('resume names what it found instead of a run', () => {
  it('a directory that was never created is "no such run"', async () => {
    const dir = join(fixture.dir, 'never-made');
    expect(await failure(resumeRun(dir))).toBe(
      `${dir}: no such run: the directory does not exist; check the path (runs are made under runs/ by default)`,
    );
  });

  it('an empty directory', async () => {
    const dir = join(fixture.dir, 'empty');
    await mkdir(dir);
    expect(await failure(resumeRun(dir))).toMatch(/no run here: the directory is empty; start a run in it/);
  });
});

describe('a run killed while it wrote its first file', () => {
  // What a SIGKILL between writing experiment.yaml's temp file and renaming it leaves.
  const leftover = '.experiment.yaml.4242.0a1b2c3d.tmp';

  it('is not resumable, and resume says how to start it again in the same directory', async () => {
    const dir = join(fixture.dir, 'killed-a');
    await mkdir(dir);
    await writeFile(join(dir, leftover), 'name: fix');
    expect(await failure(resumeRun(dir))).toBe(
      `${dir}: no run here: a run was stopped while it wrote its first file (${leftover}), before any trial began; start it again with \`longhaul run <experiment> --run-dir ${dir}\`, which reuses this directory`,
    );
  });

  it('is reused by a new run in it, which removes the leftover', async () => {
    const dir = join(fixture.dir, 'killed-b');
    await mkdir(dir);
    await writeFile(join(dir, leftover), 'name: fix');
    const result = await startRun(fixture.experiment, { runDir: dir });
    expect(result.status).toBe('ok');
    expect(result.resumed).toBe(false);
    const entries = await readdir(dir);
    expect(entries).not.toContain(leftover);
    expect(entries).toEqual(expect.arrayContaining(['experiment.yaml', 'lock.json', 'trials']));
  });

  it('any other file makes the directory one a run does not take over', async () => {
    const dir = join(fixture.dir, 'killed-c');
    await mkdir(dir);
    await writeFile(join(dir, leftover), 'name: fix');
    await writeFile(join(dir, 'notes.txt'), 'mine\n');
    expect(await failure(startRun(fixture.experiment, { runDir: dir }))).toMatch(
      /the run directory is not empty and holds no run/,
    );
    expect((await readdir(dir)).sort()).toEqual([leftover, 'notes.txt']);
  });
});
