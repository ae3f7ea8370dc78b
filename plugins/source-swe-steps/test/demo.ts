import { execFileSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const demoDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../problems/swe-steps-demo');

/** Builds the demo repository into a fresh directory and returns its path. */
export async function buildDemo(): Promise<string> {
  const repo = join(await mkdtemp(join(tmpdir(), 'longhaul-swe-steps-demo-')), 'ledger');
  execFileSync('node', [join(demoDir, 'build.mjs'), repo], { stdio: 'pipe' });
  return repo;
}
