import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const ladder = 'def positive(x):\n    if x > 0:\n        return True\n    else:\n        return False\n';

async function workspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'metrics-cli-'));
  await mkdir(join(dir, 'node_modules/dep'), { recursive: true });
  await writeFile(join(dir, 'main.py'), ladder);
  await writeFile(join(dir, 'util.ts'), 'export const twice = (x: number) => (x > 0 ? 2 * x : 0);\n');
  await writeFile(join(dir, 'node_modules/dep/index.js'), 'module.exports = 1;\n');
  return dir;
}

describe('longhaul metrics', () => {
  it('prints the quality.* keys as one JSON object', async () => {
    const dir = await workspace();
    const { code, stdout } = await runCli(['metrics', '.', '--json'], dir);
    expect(code).toBe(0);
    const scores = JSON.parse(stdout);
    expect(scores).toMatchObject({
      'quality.files': 2,
      'quality.loc': 6,
      'quality.callables': 2,
      'quality.max_cc': 2,
    });
    for (const key of [
      'erosion',
      'verbosity',
      'clone_ratio',
      'violation_rate',
      'high_cc_count',
      'cognitive_complexity',
    ]) {
      expect(scores).toHaveProperty(`quality.${key}`);
    }
  });

  it('prints a readable summary with the most complex callables', async () => {
    const { code, stdout } = await runCli(['metrics', '.'], await workspace());
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\.: 2 files, 6 LOC, 2 callables/);
    expect(stdout).toMatch(/main\.py:1 positive/);
  });

  it('shows – for every ratio of an empty workspace, never the 0 of clean code', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'metrics-empty-'));
    const { code, stdout } = await runCli(['metrics', '.'], dir);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\.: 0 files, 0 LOC, 0 callables/);
    for (const key of ['erosion', 'verbosity', 'clone_ratio', 'violation_rate', 'mean_cc', 'max_cc'])
      expect(stdout).toMatch(new RegExp(`^  ${key} +–$`, 'm'));
    expect(stdout).toMatch(/–: nothing to measure it over .*not 0/);
    const json = JSON.parse((await runCli(['metrics', '.', '--json'], dir)).stdout);
    expect(json).toMatchObject({ 'quality.erosion': null, 'quality.verbosity': null, 'quality.loc': 0 });
  });

  it('measures a single file', async () => {
    const dir = await workspace();
    const { stdout } = await runCli(['metrics', 'main.py', '--json'], dir);
    expect(JSON.parse(stdout)['quality.loc']).toBe(5);
  });

  it('says what is wrong with bad input', async () => {
    const dir = await workspace();
    const missing = await runCli(['metrics', 'nowhere'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nowhere: no such file or directory/);
    const none = await runCli(['metrics'], dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/missing PATH/);
    const term = await runCli(['metrics', '.', '--size-term', 'cubic'], dir);
    expect(term.code).not.toBe(0);
    expect(term.stderr).toMatch(/none, sqrt, linear/);
  });
});

describe.skipIf(!prerequisites.git())('longhaul metrics --git', () => {
  it('prints one row per sampled commit on the progress axis', async () => {
    const { execFileSync } = await import('node:child_process');
    const dir = await workspace();
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        stdio: 'pipe',
      });
    git('init', '-q');
    git('add', 'main.py');
    git('commit', '-q', '-m', 'one');
    git('add', 'util.ts');
    git('commit', '-q', '-m', 'two');
    const { code, stdout } = await runCli(['metrics', '--git', dir, '--json'], dir);
    expect(code).toBe(0);
    const { commits } = JSON.parse(stdout);
    expect(
      commits.map((row: Record<string, unknown>) => [row.subject, row.phase, row['quality.loc']]),
    ).toEqual([
      ['one', 'Start', 5],
      ['two', 'Final', 6],
    ]);
    const table = await runCli(['metrics', '--git', dir], dir);
    expect(table.stdout.split('\n')[0]).toMatch(/^progress\s+phase\s+commit/);
  });
});
