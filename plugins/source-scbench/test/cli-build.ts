import { join, resolve } from 'node:path';
import { ensureBuilt } from '@longhaul/testkit/build';

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
  'plugins/reporter-summary',
  'plugins/source-scbench',
  'plugins/source-longhaul',
];

/** The CLI runs built packages: build those it loads here when their sources changed. */
export const build = (): Promise<void> => ensureBuilt(packages, repoRoot);

/** Runs `longhaul ARGS` and gives its exit code and everything it printed, whether it failed or not. */
export async function longhaul(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; output: string }> {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  return promisify(execFile)('node', [bin, ...args], { env, maxBuffer: 16 << 20 }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      output: error.stdout + error.stderr,
    }),
  );
}
