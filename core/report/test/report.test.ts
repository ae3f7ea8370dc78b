import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM helper shared with the benchmark, without types
import { writeSyntheticRun } from '../../../bench/report/synthetic-run.mjs';
import { buildReport, buildRunModel, compareRuns, loadRun, reportData } from '../src/index.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function run(trials: number, conditions?: string[]) {
  const dir = await mkdtemp(join(tmpdir(), 'longhaul-report-'));
  dirs.push(dir);
  await writeSyntheticRun(dir, { trials, steps: 3, conditions });
  return dir;
}

const model = async (dir: string, index = 0) => buildRunModel(await loadRun(dir), index);

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

  it('does not report an agent that wrote nothing as better: its unmeasured ratios are skipped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'longhaul-report-'));
    dirs.push(dir);
    await writeSyntheticRun(dir, { trials: 8, steps: 3, conditions: ['working', 'nothing'] });
    // The do-nothing agent's workspace has no code: the quality scorer gives its ratios no value.
    // At task0's last step it wrote a little, measured 0.9.
    for (const task of ['task0', 'task1', 'task2', 'task3']) {
      const file = join(dir, 'trials', `${task}.nothing.r1`, 'trial.json');
      const record = JSON.parse(await readFile(file, 'utf8'));
      for (const step of record.steps) {
        const wrote = task === 'task0' && step.index === 2;
        step.scores['quality.erosion'] = wrote ? 0.9 : null;
        step.scores['quality.verbosity'] = null;
        step.scores['tests.strict'] = 0;
      }
      await writeFile(file, JSON.stringify(record));
    }
    const built = buildRunModel(await loadRun(dir), 0);
    const paired = (key: string) => built.paired.find((p) => p.key === key && p.condition === 'working');
    // Baseline 'nothing' (first in order): only the one step both measured pairs.
    expect(built.conditions).toEqual(['nothing', 'working']);
    const erosion = paired('quality.erosion')!;
    expect(erosion).toMatchObject({ n: 1, low: null, high: null, skipped: 11 });
    expect(erosion.mean).toBeLessThan(0);
    expect(paired('quality.verbosity')).toBeUndefined();
    expect(paired('tests.strict')).toMatchObject({ n: 4 });
    expect(paired('tests.strict')!.skipped).toBeUndefined();
    const stat = (condition: string, key: string) =>
      built.stats.find((s) => s.key === key && s.condition === condition);
    expect(stat('nothing', 'quality.erosion')).toMatchObject({ n: 1, mean: 0.9, skipped: 11 });
    expect(stat('nothing', 'quality.verbosity')).toBeUndefined();
    expect(stat('working', 'quality.erosion')).toMatchObject({ n: 4 });
    expect(stat('working', 'quality.erosion')!.skipped).toBeUndefined();
  });

  it('flags the steps where most tool calls failed, per step and per condition', async () => {
    const loaded = await loadRun(await run(4));
    for (const trial of loaded.trials)
      for (const step of trial.record.steps)
        step.tools =
          trial.record.condition === 'oracle/just-solve/none'
            ? { calls: 6, failed: 6 }
            : { calls: 5, failed: 2 };
    const built = buildRunModel(loaded, 0);
    const rows = Object.fromEntries(built.conditionRows.map((row) => [row.condition, row.toolFailures]));
    expect(rows).toEqual({ 'oracle/anti-slop/none': 0, 'oracle/just-solve/none': 6 });
    const failing = built.trials.find((trial) => trial.condition === 'oracle/just-solve/none')!;
    expect(failing.steps[0]!.flags).toEqual(['6 of 6 tool calls failed']);
    const fine = built.trials.find((trial) => trial.condition === 'oracle/anti-slop/none')!;
    expect(fine.steps[0]!.flags).toEqual([]);
    // Records from before steps counted their tool calls: not measured, not 0.
    const old = buildRunModel(await loadRun(await run(2)), 0);
    expect(old.conditionRows.map((row) => row.toolFailures)).toEqual([null, null]);
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

  it('reads only the start of a diff.patch larger than a report shows, and says how large it is', async () => {
    const dir = await run(1);
    const loaded = await loadRun(dir);
    const stepDir = join(dir, (await loaded.trials[0]!.steps())[0]!.dir);
    const line = '+a line of a generated file\n';
    await writeFile(join(stepDir, 'diff.patch'), line.repeat(Math.ceil((3 * 1024 * 1024) / line.length)));
    const [step] = await (await loadRun(dir)).trials[0]!.steps();
    expect(step!.diff.length).toBeLessThan(1024 * 1024 + 200);
    expect(step!.diff).toMatch(/\n… diff\.patch holds \d+ bytes; the first 1048576 are read here$/);
    const html = await buildReport([dir]);
    expect(html).toContain('+a line of a generated file');
  });

  it('names a folder that is not a run', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'longhaul-report-empty-'));
    dirs.push(dir);
    await expect(loadRun(dir)).rejects.toThrow(`${dir}: not a run directory`);
  });

  it('compares runs of different harnesses condition by condition, the harness set aside, with a paired delta', async () => {
    const oracle = await model(await run(4, ['oracle/just-solve/none']), 0);
    const ide = await model(await run(4, ['ide/just-solve/none']), 1);
    // The ide run's step 2 of task1 fails where the oracle's passes: its delta shows it.
    ide.trials.find((trial) => trial.task === 'task1')!.steps[1]!.scores['tests.strict'] = 0;
    const compared = compareRuns([oracle, ide])!;
    expect(compared.matchedBy).toContain('harness set aside');
    expect(compared.groups).toEqual([
      {
        label: 'oracle/just-solve/none → ide/just-solve/none',
        conditions: ['oracle/just-solve/none', 'ide/just-solve/none'],
      },
    ]);
    const strict = compared.cells.filter((cell) => cell.key === 'tests.strict');
    // 4 tasks × 3 steps, each in both runs, in natural order.
    expect(strict).toHaveLength(12);
    for (const cell of strict) expect(cell.values.every((value) => typeof value === 'number')).toBe(true);
    const changed = strict.find((cell) => cell.task === 'task1' && cell.step === '2. step2')!;
    expect(changed.delta).toBe(changed.values[1]! - changed.values[0]!);
    const row = compared.rows.find((r) => r.key === 'tests.strict')!;
    expect(row).toMatchObject({ cells: 12, skipped: 0 });
    expect(row.deltas[0]).toBeNull();
    expect(row.deltas[1]!.mean).toBeCloseTo(row.values[1]! - row.values[0]!);
    expect(row.values[0]! - row.values[1]!).toBeCloseTo(changed.values[0]! / 12);
    expect(row.deltas[1]!.n).toBe(4);
    // The main scores lead.
    expect(compared.rows[0]!.key).toBe('tests.strict');
  });

  it('never pools conditions: two conditions in two runs give a delta each', async () => {
    const conditions = ['ide/oracle/none', 'ide/partial/none'];
    const before = await model(await run(8, conditions), 0);
    const after = await model(await run(8, conditions), 1);
    // The partial condition solves every step of task0 in the later run; the oracle's is unchanged.
    for (const trial of after.trials.filter((t) => t.condition === 'ide/partial/none' && t.task === 'task0'))
      for (const step of trial.steps) step.scores['tests.strict'] = 1;
    const compared = compareRuns([before, after])!;
    expect(compared.matchedBy).toBe('condition');
    const strict = (group: string) =>
      compared.rows.find((r) => r.key === 'tests.strict' && r.group === group)!;
    expect(strict('ide/oracle/none').deltas[1]!.mean).toBe(0);
    const partial = strict('ide/partial/none');
    const gained = before.trials
      .filter((t) => t.condition === 'ide/partial/none' && t.task === 'task0')
      .flatMap((t) => t.steps)
      .filter((step) => step.scores['tests.strict'] === 0).length;
    expect(gained).toBeGreaterThan(0);
    expect(partial.deltas[1]!.mean).toBeCloseTo(gained / 12);
    expect(partial.values[1]! - partial.values[0]!).toBeCloseTo(gained / 12);
  });

  it('compares runs over the cells both measured, and says how many it skipped', async () => {
    const working = await model(await run(4, ['oracle/just-solve/none']), 0);
    const idle = await model(await run(4, ['ide/just-solve/none']), 1);
    // The idle run left no code at three cells: no erosion there, not an erosion of 0.
    for (const trial of idle.trials.filter((t) => t.task !== 'task0'))
      trial.steps[0]!.scores['quality.erosion'] = null;
    const erosion = compareRuns([working, idle])!.rows.find((row) => row.key === 'quality.erosion')!;
    expect(erosion).toMatchObject({ cells: 9, skipped: 3 });
    expect(erosion.deltas[1]!.skipped).toBe(3);
  });

  it('matches conditions by label where the runs share them, and names the rest as not compared', async () => {
    const first = await model(await run(4));
    const second = await model(await run(4, ['oracle/just-solve/none', 'ide/just-solve/none']), 1);
    const compared = compareRuns([first, second])!;
    expect(compared.matchedBy).toBe('condition');
    expect(new Set(compared.cells.map((cell) => cell.group))).toEqual(new Set(['oracle/just-solve/none']));
    expect(compared.unmatched.map((u) => u.condition).sort()).toEqual([
      'ide/just-solve/none',
      'oracle/anti-slop/none',
    ]);
    expect(compareRuns([first])).toBeUndefined();
  });

  it('says first what changed between the runs: the experiments key by key and the scores one lacks', async () => {
    const a = await run(4);
    const b = await run(4);
    await writeFile(
      join(a, 'experiment.yaml'),
      'name: x\nbaseDir: /a\nrepeats: 2\nharness:\n  - { id: ide, label: o, options: { model: oracle } }\n',
    );
    await writeFile(
      join(b, 'experiment.yaml'),
      'name: x\nbaseDir: /b\nrepeats: 3\nharness:\n  - { id: ide, label: o, options: { model: partial } }\n',
    );
    const second = await model(b, 1);
    for (const trial of second.trials) for (const step of trial.steps) step.scores['todos.count'] = 1;
    second.scoreKeys.push('todos.count');
    const { changed } = compareRuns([await model(a), second])!;
    expect(changed[0]).toContain('repeats 2 → 3');
    expect(changed[0]).toContain('harness[0].options.model oracle → partial');
    expect(changed[0]).not.toContain('baseDir');
    expect(changed[1]).toContain('todos.count');
  });

  it('orders tasks as a person counts them, and draws steps per task where tasks differ in length', async () => {
    const dir = await run(24, ['a']);
    const loaded = await loadRun(dir);
    // task10 exists; task2 must still come before it.
    const ordered = buildRunModel(loaded, 0);
    expect(ordered.tasks.slice(0, 3)).toEqual(['task0', 'task1', 'task2']);
    expect(ordered.tasks.at(-1)).toBe('task9');
    expect(ordered.seriesMode).toBe('step');
    for (const trial of loaded.trials.filter((t) => t.record.task === 'task1')) trial.record.steps.pop();
    const uneven = buildRunModel(loaded, 0);
    expect(uneven.seriesMode).toBe('progress');
    const points = uneven.series.filter((p) => p.key === 'tests.strict' && p.task === 'task1');
    expect(points.map((p) => p.x)).toEqual([0.5, 1]);
    expect(
      uneven.series.filter((p) => p.key === 'tests.strict' && p.task === 'task0').map((p) => p.x),
    ).toEqual([1 / 3, 2 / 3, 1]);
    for (const trial of loaded.trials) trial.record.steps.splice(1);
    const single = buildRunModel(loaded, 0);
    expect(single.seriesMode).toBe('none');
    expect(single.plotKeys).toEqual([]);
  });

  it("plots the selected scores, a scorer of one's own, and no constant", async () => {
    const dir = await run(4);
    await writeFile(
      join(dir, 'experiment.yaml'),
      'reporters:\n  - { id: summary, options: { columns: [quality.verbosity, judge.final] } }\n',
    );
    const loaded = await loadRun(dir);
    for (const trial of loaded.trials)
      for (const step of trial.record.steps) {
        step.scores['todos.count'] = step.index + trial.record.repeat;
        step.usage.costUsd = 0;
      }
    // A score given at the last step only (as a trial-scope score is) varies but has no curve.
    loaded.trials.forEach((trial, i) => {
      trial.record.steps.at(-1)!.scores['judge.final'] = i;
    });
    const built = buildRunModel(loaded, 0);
    expect(built.plotKeys).not.toContain('judge.final');
    expect(built.plotKeys[0]).toBe('quality.verbosity');
    expect(built.plotKeys).toContain('tests.strict');
    expect(built.plotKeys).toContain('todos.count');
    expect(built.plotKeys).not.toContain('cost.usd');
    expect(built.plotKeys).toContain('time.seconds');
  });

  it('gives each trial its solved steps, errors and failed tool calls, and a tone by outcome', async () => {
    const loaded = await loadRun(await run(4));
    const [first, second] = loaded.trials.map((t) => t.record);
    for (const step of first!.steps) step.scores['tests.strict'] = 1;
    first!.scores['tool-use.failed_calls'] = 3;
    first!.steps[1]!.scores['integrity.tamper'] = 2;
    second!.status = 'error:model';
    second!.steps[2]!.status = 'error:model';
    for (const step of second!.steps) step.scores['tests.strict'] = 0;
    const built = buildRunModel(loaded, 0);
    const [a, b] = built.trials;
    expect(a!.outcome).toMatchObject({ solved: 3, steps: 3, tone: 'solved' });
    expect(a!.outcome!.signals).toEqual([
      { key: 'tools.failed', label: 'failed tool calls', value: 3, tone: 'warn' },
      { key: 'integrity.tamper', label: 'tamper signals', value: 2, tone: 'warn' },
    ]);
    expect(b!.outcome).toMatchObject({ solved: 0, steps: 3, errored: 1, tone: 'errored' });
    expect(b!.steps.map((s) => s.tone)).toEqual(['unsolved', 'unsolved', 'errored']);
    // No failed-call score in the run: no signal, not a 0.
    expect(built.trials[2]!.outcome!.signals).toEqual([]);
  });

  it('leads with the figures reporters mark, else the first table, and counts errors per condition', async () => {
    const dir = await run(4);
    const table = (id: string, lead?: boolean) => ({
      kind: 'table',
      reporter: 'bench',
      id,
      title: id,
      columns: [{ key: 'condition', label: 'condition' }],
      rows: [],
      ...(lead === undefined ? {} : { lead }),
    });
    await writeFile(join(dir, 'figures.json'), JSON.stringify({ figures: [table('a'), table('b', true)] }));
    expect((await model(dir)).leads).toEqual(['bench.b']);
    await writeFile(join(dir, 'figures.json'), JSON.stringify({ figures: [table('a'), table('b')] }));
    expect((await model(dir)).leads).toEqual(['bench.a']);

    const loaded = await loadRun(dir);
    const record = loaded.trials[0]!.record;
    record.status = 'error:sandbox';
    record.steps[1]!.status = 'error:sandbox';
    record.steps[2]!.status = 'skipped';
    const counts = buildRunModel(loaded, 0).counts.find((row) => row.condition === record.condition)!;
    expect(counts).toEqual({
      condition: record.condition,
      trials: 2,
      erroredTrials: 1,
      steps: 6,
      // The step its trial never reached after the fault is lost to it too.
      scored: 4,
      errored: 2,
      cancelled: 0,
    });
  });

  it('leaves out per-step time and cost where every step is scored after one turn', async () => {
    const loaded = await loadRun(await run(4));
    for (const trial of loaded.trials.filter((t) => t.record.condition === 'oracle/anti-slop/none'))
      for (const step of trial.record.steps.slice(1)) step.turns = 0;
    const built = buildRunModel(loaded, 0);
    expect(built.sharedTurn).toEqual(['oracle/anti-slop/none']);
    const timed = new Set(built.series.filter((p) => p.key === 'time.seconds').map((p) => p.condition));
    expect(timed).toEqual(new Set(['oracle/just-solve/none']));
    expect(
      built.series.some((p) => p.key === 'tests.strict' && p.condition === 'oracle/anti-slop/none'),
    ).toBe(true);
  });
});
