import { createHash } from 'node:crypto';
import { basename, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeProject, type ProjectReport, readSourceTree, type SourceFile } from '../src/index.js';
import { solutionDirs } from './solutions.js';

function comparable(report: ProjectReport) {
  const details = JSON.stringify([report.files, report.callables, report.hits, report.clones]);
  return { summary: report.summary, details: createHash('sha256').update(details).digest('hex') };
}

const clone =
  'def total(items):\n    result = 0\n    for item in items:\n        result += item\n    return result\n';

describe('incremental measurement', () => {
  it('equals a full measurement along every shipped problem’s steps', { timeout: 300_000 }, async () => {
    const byProblem = new Map<string, string[]>();
    for (const dir of solutionDirs) {
      const problem = dirname(dirname(dirname(dir)));
      byProblem.set(problem, [...(byProblem.get(problem) ?? []), dir]);
    }
    let reusedFiles = 0;
    for (const [problem, steps] of byProblem) {
      let previous: SourceFile[] | undefined;
      let last: ProjectReport | undefined;
      for (const dir of steps) {
        const sources = await readSourceTree(dir);
        const full = await analyzeProject(sources, {}, previous);
        const incremental = await analyzeProject(sources, {}, previous, last?.results);
        expect(comparable(incremental), `${basename(problem)} ${basename(dirname(dir))}`).toEqual(
          comparable(full),
        );
        expect(full.measured).toBe(sources.length);
        reusedFiles += sources.length - incremental.measured;
        previous = sources;
        last = incremental;
      }
    }
    // The step solutions share files: the sequence exercises reuse, not only re-measurement.
    expect(reusedFiles).toBeGreaterThan(0);
  });

  it('measures only changed files and recounts clones with an unchanged partner', async () => {
    const first: SourceFile[] = [
      { path: 'a.py', text: clone },
      { path: 'b.py', text: clone },
      { path: 'c.py', text: 'x = 1\n' },
    ];
    const before = await analyzeProject(first);
    expect(before.summary.clone_groups).toBe(1);
    const second = [first[0]!, { path: 'b.py', text: 'def other():\n    return 1\n' }, first[2]!];
    const after = await analyzeProject(second, {}, first, before.results);
    expect(after.measured).toBe(1);
    expect(after.summary.clone_lines).toBe(0);
    expect(after.files.map((file) => file.cloneLines)).toEqual([0, 0, 0]);
    expect(comparable(after)).toEqual(comparable(await analyzeProject(second, {}, first)));
    // Back to the clone: a.py is reused, and gets its clone lines again.
    const third = await analyzeProject(first, {}, second, after.results);
    expect(third.measured).toBe(1);
    expect(comparable(third)).toEqual(comparable(await analyzeProject(first, {}, second)));
  });

  it('measures everything again when the options differ', async () => {
    const sources: SourceFile[] = [{ path: 'a.py', text: clone }];
    const before = await analyzeProject(sources, { ccThreshold: 10 });
    const sameButThreads = await analyzeProject(
      sources,
      { ccThreshold: 10, threads: 2 },
      undefined,
      before.results,
    );
    expect(sameButThreads.measured).toBe(0);
    const other = await analyzeProject(sources, { ccThreshold: 1 }, undefined, before.results);
    expect(other.measured).toBe(1);
    expect(other.summary.high_cc_count).toBe(1);
  });

  it('does not reuse a result for the same content under another path', async () => {
    const before = await analyzeProject([{ path: 'a.py', text: clone }]);
    const moved = await analyzeProject([{ path: 'b.py', text: clone }], {}, undefined, before.results);
    expect(moved.measured).toBe(1);
    expect(moved.files[0]!.path).toBe('b.py');
  });
});
