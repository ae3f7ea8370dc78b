import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { commandProbe, dockerImagesProbe, prerequisite, pythonModulesProbe } from '../src/prerequisites.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

interface JsonReport {
  testResults: {
    message: string;
    status: string;
    assertionResults: { fullName: string; status: string }[];
  }[];
}

/** Runs the two fixture files (each needing an absent program and node) in a vitest of their own. */
async function runFixtures(env: Record<string, string | undefined>) {
  const dir = await mkdtemp(join(tmpdir(), 'longhaul-prerequisites-test-'));
  const out = join(dir, 'report.json');
  const { CI: _, ...inherited } = process.env;
  const result = await promisify(execFile)(
    process.execPath,
    [
      vitest,
      'run',
      '--config',
      'test/fixtures/prerequisites/vitest.config.ts',
      '--reporter=json',
      `--outputFile=${out}`,
    ],
    { cwd: packageDir, env: { ...inherited, ...env } },
  ).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  const report = JSON.parse(await readFile(out, 'utf8')) as JsonReport;
  await rm(dir, { recursive: true, force: true });
  return { ...result, report };
}

describe('prerequisite in test files', () => {
  it('skips the tests needing what is missing, saying so in one line for the whole run', async () => {
    const { code, stderr, report } = await runFixtures({});
    expect(code).toBe(0);
    const lines = stderr.split('\n').filter((line) => line.includes('longhaul-absent-program'));
    expect(lines).toEqual([
      'skipped: tests needing longhaul-absent-program (longhaul-absent-program is not on PATH; install the Debian package longhaul-absent)',
    ]);
    const results = report.testResults.flatMap((file) => file.assertionResults);
    expect(
      results
        .filter((r) => r.status === 'passed')
        .map((r) => r.fullName)
        .sort(),
    ).toEqual(['one: needing node runs', 'two: needing node runs']);
    expect(results.filter((r) => r.status === 'skipped').length).toBe(2);
  });

  it('takes CI=false for CI unset', async () => {
    const { code, stderr } = await runFixtures({ CI: 'false' });
    expect(code).toBe(0);
    expect(stderr).toContain('skipped: tests needing longhaul-absent-program');
  });

  it('fails every file needing what is missing when CI is set, naming it and how to install it', async () => {
    const { code, stderr, report } = await runFixtures({ CI: 'true' });
    expect(code).toBe(1);
    const message =
      'CI is set, so tests needing longhaul-absent-program fail rather than skip: longhaul-absent-program is not on PATH (install the Debian package longhaul-absent, as .ci/run does)';
    expect(report.testResults.map((file) => [file.status, file.message.includes(message)])).toEqual([
      ['failed', true],
      ['failed', true],
    ]);
    expect(stderr).not.toContain('skipped: tests needing');
  });
});

describe('probes', () => {
  it('tell a program that is not on PATH from one that fails', () => {
    expect(commandProbe('longhaul-absent-program')()).toBe('longhaul-absent-program is not on PATH');
    expect(commandProbe(process.execPath, ['-e', 'process.exit(3)'])()).toBe(
      `\`${process.execPath} -e process.exit(3)\` exits with 3`,
    );
    expect(commandProbe(process.execPath)()).toBeUndefined();
  });

  it('name the Python that is not there or lacks a module', () => {
    expect(pythonModulesProbe('/nonexistent/python3', ['pytest'])()).toBe(
      '/nonexistent/python3 is not there',
    );
    const python = process.execPath; // not a Python: `-c import …` is a syntax error for node
    expect(pythonModulesProbe(python, ['longhaul_absent'])()).toMatch(/cannot import longhaul_absent/);
  });

  it('name the Docker daemon that cannot be reached', () => {
    const host = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = 'unix:///nonexistent/docker.sock';
    try {
      const missing = dockerImagesProbe(['longhaul/base:any'])();
      expect(missing).toMatch(/^(no Docker daemon: |docker is not on PATH)/);
    } finally {
      if (host === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = host;
    }
  });

  it('answer once per process, the promise of an asynchronous probe too', async () => {
    let runs = 0;
    const probe = () => {
      runs += 1;
      return undefined;
    };
    const need = { name: 'counted', install: 'nothing', probe };
    expect(prerequisite(need)).toBe(true);
    expect(prerequisite(need)).toBe(true);
    expect(runs).toBe(1);
    const later = { name: 'later', install: 'nothing', probe: async () => undefined };
    expect(await prerequisite(later)).toBe(true);
  });
});
