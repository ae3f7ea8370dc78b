import { describe, expect, it } from 'vitest';
import { analyzeProject, type ProjectReport } from '../src/index.js';
import { allSolutions } from './solutions.js';

export const results = (report: ProjectReport) => [
  report.summary,
  report.files,
  report.callables,
  report.hits,
  report.clones,
];

describe('worker threads', () => {
  it('give the same results as one thread', { timeout: 300_000 }, async () => {
    const sources = await allSolutions();
    const one = await analyzeProject(sources);
    const three = await analyzeProject(sources, { threads: 3 });
    expect(one.summary.clone_groups).toBeGreaterThan(0);
    expect(one.summary.rule_hits).toBeGreaterThan(0);
    expect(results(three)).toEqual(results(one));
  });

  it('analyze sources that are not on disk', { timeout: 120_000 }, async () => {
    const sources = [
      { path: 'a.py', text: 'def f(x):\n    if x:\n        return 1\n    return 2\n' },
      { path: 'b.ts', text: 'export function g(y: number) {\n  if (y) return 1;\n  return 2;\n}\n' },
    ];
    const one = await analyzeProject(sources);
    expect(results(await analyzeProject(sources, { threads: 2 }))).toEqual(results(one));
    expect(one.summary.callables).toBe(2);
  });
});
