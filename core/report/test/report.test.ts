import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM helper shared with the benchmark, without types
import { writeSyntheticRun } from '../../../bench/report/synthetic-run.mjs';
import { buildReport, buildRunModel, loadRun, reportData } from '../src/index.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function run(trials: number) {
  const dir = await mkdtemp(join(tmpdir(), 'longhaul-report-'));
  dirs.push(dir);
  await writeSyntheticRun(dir, { trials, steps: 3 });
  return dir;
}

describe('report', () => {
  it('computes per-condition rows, intervals, paired differences and series from the store', async () => {
    const model = buildRunModel(await loadRun(await run(8)), 0);
    expect(model.conditions).toEqual(['oracle/anti-slop/none', 'oracle/just-solve/none']);
    expect(model.conditionRows.map((row) => [row.trials, row.steps])).toEqual([
      [4, 12],
      [4, 12],
    ]);
    const strict = model.stats.find(
      (s) => s.key === 'tests.strict' && s.condition === 'oracle/anti-slop/none',
    )!;
    expect(strict.low).toBeLessThanOrEqual(strict.mean);
    expect(strict.high).toBeGreaterThanOrEqual(strict.mean);
    expect(model.paired.some((p) => p.key === 'quality.erosion' && p.n === 4)).toBe(true);
    expect(model.series.filter((p) => p.key === 'quality.erosion').map((p) => p.step)).toEqual([
      1, 2, 3, 1, 2, 3,
    ]);
  });

  it('keeps agent-written text inert: a prompt closing the script element stays data', async () => {
    const dir = await run(2);
    const loaded = await loadRun(dir);
    const stepDir = join(dir, (await loaded.trials[0]!.steps())[0]!.dir);
    await writeFile(join(stepDir, 'prompt.md'), '</script><script>alert(1)</script>');
    const html = await buildReport([dir]);
    expect(html).not.toContain('</script><script>alert(1)');
    expect(html).toContain('\\u003c/script>\\u003cscript>alert(1)');
  });

  it('cuts long texts in large runs and says where the whole file is', async () => {
    const dir = await run(2);
    const loaded = await loadRun(dir);
    const { details } = await reportData([loaded]);
    const [first] = details.values() as IterableIterator<{ diff: string }[]>;
    expect(first![0]!.diff).toContain('+line 119');
    const big = await import('../src/truncate.js');
    expect(big.truncate('x'.repeat(1000), 100, 'trials/a/diff.patch')).toMatch(
      /^x{100}\n… truncated: 100 of 1000 characters shown; all of it is in trials\/a\/diff.patch$/,
    );
    expect(big.textLimit(1000, 5)).toBeLessThan(big.textLimit(10, 5));
  });

  it('names a folder that is not a run', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'longhaul-report-empty-'));
    dirs.push(dir);
    await expect(loadRun(dir)).rejects.toThrow(`${dir}: not a run directory`);
  });
});
