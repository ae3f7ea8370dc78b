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
  'plugins/source-scbench',
  'plugins/source-longhaul',
];

/** The CLI runs built packages: build those it loads here when their sources changed. */
export const build = (): Promise<void> => ensureBuilt(packages, repoRoot);
