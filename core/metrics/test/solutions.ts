import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSourceTree, type SourceFile } from '../src/index.js';

export const problems = fileURLToPath(new URL('../../../problems', import.meta.url));

export const solutionDirs = readdirSync(problems, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((problem) => {
    const steps = join(problems, problem.name, 'steps');
    try {
      return readdirSync(steps).map((step) => join(steps, step, 'solution'));
    } catch {
      return [];
    }
  })
  .filter((dir) => {
    try {
      return readdirSync(dir).length > 0;
    } catch {
      return false;
    }
  })
  .sort();

/** Every shipped solution in one source list, each file under its solution's directory. */
export async function allSolutions(): Promise<SourceFile[]> {
  const all: SourceFile[] = [];
  for (const [index, dir] of solutionDirs.entries())
    for (const source of await readSourceTree(dir)) all.push({ ...source, path: `${index}/${source.path}` });
  return all;
}
