import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyzeProject, type ProjectReport, readSourceTree } from '../src/index.js';
import { problems, solutionDirs } from './solutions.js';

/**
 * The full metrics of every shipped problem's step solutions, against an expectation stored before
 * the analysis was optimized: a faster pipeline must give the same numbers. After a deliberate
 * change of a metric's definition, regenerate with `LONGHAUL_UPDATE_EXPECTATIONS=1 npx vitest run
 * test/solutions.test.ts` and review the diff.
 */
const expectationFile = fileURLToPath(new URL('solutions.expected.json', import.meta.url));

interface Expectation {
  summary: ProjectReport['summary'];
  /** SHA-256 of every per-file, per-callable, finding and clone row. */
  details: string;
}

function expectationOf(report: ProjectReport): Expectation {
  const details = JSON.stringify([report.files, report.callables, report.hits, report.clones]);
  return { summary: report.summary, details: createHash('sha256').update(details).digest('hex') };
}

describe('metrics of the shipped solutions', () => {
  it('equal the stored expectation', { timeout: 300_000 }, async () => {
    expect(solutionDirs.length).toBeGreaterThan(20);
    const actual: Record<string, Expectation> = {};
    for (const dir of solutionDirs) {
      const sources = await readSourceTree(dir);
      actual[dir.slice(problems.length + 1)] = expectationOf(await analyzeProject(sources));
    }
    if (process.env.LONGHAUL_UPDATE_EXPECTATIONS === '1')
      writeFileSync(expectationFile, `${JSON.stringify(actual, null, 2)}\n`);
    expect(actual).toEqual(JSON.parse(readFileSync(expectationFile, 'utf8')));
  });
});
