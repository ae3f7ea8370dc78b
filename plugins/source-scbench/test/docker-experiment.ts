import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { bin } from './cli-build.js';

/** `longhaul images ref ARGS`: the image this installation would use. */
export const imageRef = (...args: string[]): string =>
  execFileSync('node', [bin, 'images', 'ref', ...args], { encoding: 'utf8' }).trim();

/** Writes an experiment running `problem` of the scbench directory `path` with the oracle. */
export async function oracleExperiment(
  file: string,
  { name, path, problem, environment }: { name: string; path: string; problem: string; environment: string },
): Promise<string> {
  await writeFile(
    file,
    [
      `name: ${name}`,
      `source: { id: scbench, options: { path: ${path}, problems: [${problem}] } }`,
      'harness: oracle',
      `environment: ${environment}`,
      'script: { id: checkpoints, label: just-solve, options: { prompt: just-solve } }',
      'scorers: [tests, solve-rates]',
      'reporters: [solve-rates]',
      '',
    ].join('\n'),
  );
  return file;
}
