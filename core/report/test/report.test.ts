import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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

  it('counts errored and cancelled steps beside the scored ones, gives n=1 no interval and shows a missing cell', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'longhaul-report-'));
    dirs.push(dir);
    // a: two tasks; b: one trial errored (model) at its second step, one cancelled at its first;
    // c: one trial, and no trial of task1.
    await writeSyntheticRun(dir, { trials: 5, steps: 3, conditions: ['a', 'b', 'c'] });
    const edit = async (
      id: string,
      change: (record: Record<string, unknown> & { steps: object[] }) => void,
    ) => {
      const file = join(dir, 'trials', id, 'trial.json');
      const record = JSON.parse(await readFile(file, 'utf8'));
      change(record);
      await writeFile(file, JSON.stringify(record));
    };
    await edit('task0.b.r1', (record) => {
      record.status = 'error:model';
      record.steps = [
        record.steps[0]!,
        { ...record.steps[1]!, status: 'error:model', scores: { 'tests.strict': 0 } },
      ];
    });
    await edit('task1.b.r1', (record) => {
      record.status = 'cancelled';
      record.steps = [{ ...record.steps[0]!, status: 'cancelled', scores: {} }];
    });
    const model = buildRunModel(await loadRun(dir), 0);
    const b = model.conditionRows.find((row) => row.condition === 'b')!;
    expect(b).toMatchObject({ trials: 2, scored: 1, errored: 1, errorClasses: { model: 1 }, cancelled: 1 });
    // Over the one scored step, not over the three steps recorded.
    const firstStep = JSON.parse(await readFile(join(dir, 'trials', 'task0.b.r1', 'trial.json'), 'utf8'))
      .steps[0];
    expect(b.strict).toBe(firstStep.scores['tests.strict'] === 1 ? 1 : 0);
    const strictOf = (condition: string) =>
      model.stats.find((s) => s.key === 'tests.strict' && s.condition === condition)!;
    // b's cancelled trial measured nothing, so one trial stands behind its mean; c has one trial.
    expect(strictOf('b')).toMatchObject({ n: 1, low: null, high: null });
    expect(strictOf('c')).toMatchObject({ n: 1, low: null, high: null });
    expect(strictOf('a').n).toBe(2);
    expect(strictOf('a').low).not.toBeNull();
    const cell = (condition: string, task: string) =>
      model.matrix.find((m) => m.condition === condition && m.task === task)!.text;
    expect(cell('c', 'task1')).toBe('missing');
    expect(cell('b', 'task0')).toBe('1 error:model; 1 scored, 1 errored (model)');
    expect(cell('b', 'task1')).toBe('1 cancelled; 0 scored, 1 cancelled');
    expect(cell('a', 'task0')).toBe('1 ok; 3 scored');
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
