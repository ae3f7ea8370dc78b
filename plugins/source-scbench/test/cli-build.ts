import { execFileSync } from 'node:child_process';
import { mkdirSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../../..');
export const bin = join(repoRoot, 'core/cli/bin/longhaul.js');
const packages = [
  'core/cli',
  'harnesses/oracle',
  'plugins/environment-local',
  'plugins/environment-docker',
  'plugins/scripts',
  'plugins/memory-basic',
  'plugins/scorer-tests',
  'plugins/scorer-solve-rates',
  'plugins/reporter-solve-rates',
  'plugins/source-scbench',
  'plugins/source-longhaul',
];

/** The CLI runs built packages; turbo rebuilds what changed (one test file at a time, by a lock). */
export async function build(): Promise<void> {
  const lock = join(tmpdir(), 'longhaul-cli-test-build.lock');
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      await new Promise((done) => setTimeout(done, 200));
    }
  }
  try {
    const filters = packages.map((pkg) => `--filter=./${pkg}`);
    execFileSync('npx', ['turbo', 'run', 'build', ...filters, '--output-logs=errors-only'], {
      cwd: repoRoot,
      stdio: 'ignore',
      timeout: 600_000,
    });
  } finally {
    rmdirSync(lock);
  }
}
