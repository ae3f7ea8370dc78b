import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { describe, expect, it } from 'vitest';
import { measureHistory, progressPhases, spread } from '../src/index.js';

describe('progress axis', () => {
  it('bins steps into Start, Early, Mid, Late and Final, earlier groups taking the remainder', () => {
    expect(progressPhases(3)).toEqual(['Start', 'Early', 'Final']);
    expect(progressPhases(4)).toEqual(['Start', 'Early', 'Mid', 'Final']);
    expect(progressPhases(6)).toEqual(['Start', 'Early', 'Early', 'Mid', 'Late', 'Final']);
    expect(progressPhases(8)).toEqual(['Start', 'Early', 'Early', 'Mid', 'Mid', 'Late', 'Late', 'Final']);
  });

  it('spreads samples evenly and keeps the first and last', () => {
    expect(spread(10, 4)).toEqual([0, 3, 6, 9]);
    expect(spread(3, 30)).toEqual([0, 1, 2]);
  });
});

describe.skipIf(!prerequisites.git())('git history sampling', () => {
  it('measures source-touching commits on the normalized progress axis', async () => {
    const repo = await mkdtemp(join(tmpdir(), 'history-'));
    const sh = (...args: string[]) =>
      execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        stdio: 'pipe',
      });
    sh('init', '-q');
    const commit = async (files: Record<string, string>, message: string) => {
      for (const [path, text] of Object.entries(files)) {
        await mkdir(dirname(join(repo, path)), { recursive: true });
        await writeFile(join(repo, path), text);
      }
      sh('add', '-A');
      sh('commit', '-q', '-m', message);
    };
    await commit({ 'a.py': 'x = 1\n' }, 'one');
    await commit({ 'README.md': 'docs\n' }, 'docs only');
    await commit({ 'a.py': 'x = 1\ny = 2\n', '.gitignore': 'gen/\n' }, 'two');
    await commit({ 'b.ts': 'export const z = 1;\n', 'gen/c.py': 'x = 1\n' }, 'three');
    const history = await measureHistory(repo, { commits: 30 });
    expect(history.map((entry) => [entry.subject, entry.phase, entry.progress, entry.summary.loc])).toEqual([
      ['one', 'Start', 0, 1],
      ['two', 'Early', 0.5, 2],
      ['three', 'Final', 1, 3],
    ]);
    expect(history[1]?.summary.lines_added).toBe(1);
    const two = await measureHistory(repo, { commits: 2 });
    expect(two.map((entry) => entry.subject)).toEqual(['one', 'three']);
  });

  it('says which repository git could not read', async () => {
    await expect(measureHistory(join(tmpdir(), 'no-such-repo'))).rejects.toThrow(/no-such-repo/);
  });
});
