import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM helper shared with the benchmark, without types
import { writeSyntheticRun } from '../../../bench/report/synthetic-run.mjs';
import { buildReport } from '../src/index.js';
import { columnValues, emptySections, launchChromium, openReport, plotMarks, shots } from './page.js';

let browser: Browser;
let dir: string;

beforeAll(async () => {
  browser = await launchChromium();
  dir = await mkdtemp(join(tmpdir(), 'longhaul-report-browser-'));
  await writeSyntheticRun(dir, { trials: 6, steps: 4 });
  const summary = {
    conditions: [
      {
        condition: 'oracle/anti-slop/none',
        trials: 3,
        steps: 12,
        solveRates: { strict: 0.5, iso: 0.75, core: 1 },
        costUsd: 0.3,
        durationMs: 258_000,
      },
      {
        condition: 'oracle/just-solve/none',
        trials: 3,
        steps: 12,
        solveRates: { strict: 2 / 3, iso: null, core: 1 },
        costUsd: 0.3,
        durationMs: 258_000,
      },
    ],
  };
  await writeFile(join(dir, 'summary.json'), JSON.stringify(summary));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!prerequisites.chromium())('report in Chromium', () => {
  it('shows the summary numbers, draws every plot, and opens a step with its diff and cases', async () => {
    const file = join(dir, 'report.html');
    await writeFile(file, await buildReport([dir]));
    const { page, errors } = await openReport(browser, `file://${file}`);
    await page.screenshot({ path: join(shots, 'report-overview.png'), fullPage: true });

    const strict = await columnValues(page.locator('table.conditions'), 'strict');
    expect(strict).toEqual([0.5, 2 / 3]);
    expect(await page.locator('table.conditions td[data-key=iso]').nth(1).textContent()).toBe('–');
    // summary.json without outcome counts: the records' counts stand in.
    expect(await columnValues(page.locator('table.conditions'), 'scored')).toEqual([12, 12]);
    expect(await page.locator('p.legend').first().textContent()).toContain("'missing': the run has no trial");
    const stat = await page.locator('table.stats td[data-key="oracle/anti-slop/none"]').first().textContent();
    expect(stat).toMatch(/^\S+ \[\S+, \S+\] n=3$/);

    const plots = await plotMarks(page);
    expect(plots.length).toBeGreaterThanOrEqual(4);
    for (const plot of plots) expect(plot.marks, plot.title).toBeGreaterThan(0);

    await page.locator('details.trial > summary').first().click();
    await page.locator('details.step > summary').first().click();
    const step = page.locator('details.step').first();
    await expect
      .poll(() => step.locator('pre.diff').textContent(), { timeout: 120_000 })
      .toContain('+line 0 of step 1');
    expect(await step.locator('table.cases tr').count()).toBe(3);
    await step.screenshot({ path: join(shots, 'report-step.png') });
    expect(errors).toEqual([]);
    await page.close();
  }, 300_000);

  it('compares runs of different harnesses with numbers in the deltas and one overlaid plot per score', async () => {
    const runs: string[] = [];
    for (const harness of ['oracle', 'ide']) {
      const run = await mkdtemp(join(tmpdir(), `longhaul-report-${harness}-`));
      runs.push(run);
      await writeSyntheticRun(run, { trials: 3, steps: 4, conditions: [`${harness}/just-solve/none`] });
    }
    // The ide run fails task0's step 3 where the oracle run passes it.
    const trialFile = join(runs[1]!, 'trials', 'task0.ide.just-solve.none.r1', 'trial.json');
    const record = JSON.parse(await readFile(trialFile, 'utf8'));
    record.steps[2].scores['tests.strict'] = 0;
    await writeFile(trialFile, JSON.stringify(record));
    try {
      const file = join(runs[0]!, 'report.html');
      await writeFile(file, await buildReport(runs));
      const { page, errors } = await openReport(browser, `file://${file}`);
      await page.screenshot({ path: join(shots, 'report-two-harnesses.png'), fullPage: true });

      // What changed comes first, naming both runs.
      const names = runs.map((run) => run.split('/').at(-1)!);
      expect(await page.locator('main > section').first().getAttribute('class')).toContain('what-changed');
      expect(await page.locator('section.what-changed h2').textContent()).toBe(
        `What changed: ${names.join(' vs ')}`,
      );
      const deltas = page.locator('table.run-deltas');
      expect(await deltas.locator('th').allTextContents()).toEqual([
        'condition',
        'score',
        'cells',
        'skipped',
        names[0],
        names[1],
        `Δ ${names[1]} − ${names[0]}`,
      ]);
      const scores = await deltas.locator('td[data-key=key]').allTextContents();
      expect(scores).toContain('tests.strict');
      for (const key of ['v0', 'v1', 'd1']) {
        const values = await columnValues(deltas, key);
        expect(values, key).toHaveLength(scores.length);
        for (const value of values) expect(value, key).not.toBeNull();
      }
      const strict = scores.indexOf('tests.strict');
      expect(await deltas.locator('td[data-key=group]').nth(strict).textContent()).toBe(
        'oracle/just-solve/none → ide/just-solve/none',
      );
      // task0 step 3: 1 in the oracle run, 0 in the ide run; 12 task × step cells in all.
      expect((await columnValues(deltas, 'd1'))[strict]).toBeCloseTo(-1 / 12);
      expect(await deltas.locator('td[data-key=d1]').nth(strict).textContent()).toMatch(
        /^-0\.083 \[\S+, \S+\] n=3$/,
      );

      // One plot per score, both runs in it: one legend with both runs, lines on one scale.
      const overlaid = page.locator('section.overlaid figure.plot');
      const keys = await overlaid.evaluateAll((figures) => figures.map((f) => f.getAttribute('data-score')));
      expect(keys).toContain('tests.strict');
      expect(new Set(keys).size).toBe(keys.length);
      for (let i = 0; i < keys.length; i++) {
        // Legends name each run whole, with its condition: nothing cut.
        const legend = await overlaid.nth(i).locator('svg .role-legend-label text').allTextContents();
        expect(legend, keys[i]!).toEqual(
          [`${names[1]} · ide/just-solve/none`, `${names[0]} · oracle/just-solve/none`].sort(),
        );
        expect(await overlaid.nth(i).locator('svg .mark-line path').count(), keys[i]!).toBe(2);
      }
      expect(await page.locator('section.plots:not(.overlaid)').count()).toBe(0);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await Promise.all(runs.map((run) => rm(run, { recursive: true, force: true })));
    }
  }, 300_000);

  it('compares two runs of two conditions condition by condition, and shows each trial solved x/y', async () => {
    const conditions = ['ide/oracle/none', 'ide/partial/none'];
    const runs: string[] = [];
    for (const name of ['before', 'after']) {
      const run = await mkdtemp(join(tmpdir(), `longhaul-report-${name}-`));
      runs.push(run);
      await writeSyntheticRun(run, { trials: 8, steps: 3, conditions });
      await writeFile(
        join(run, 'experiment.yaml'),
        `name: partial\nrepeats: 1\nmodels:\n  partial: { backend: scripted, replies: [{ file: ${name}.yaml }] }\n`,
      );
    }
    // In the later run the partial condition solves every step of task0 and task1.
    let gained = 0;
    for (const task of ['task0', 'task1']) {
      const file = join(runs[1]!, 'trials', `${task}.ide.partial.none.r1`, 'trial.json');
      const record = JSON.parse(await readFile(file, 'utf8'));
      for (const step of record.steps) {
        if (step.scores['tests.strict'] === 0) gained += 1;
        step.scores['tests.strict'] = 1;
      }
      await writeFile(file, JSON.stringify(record));
    }
    expect(gained).toBeGreaterThan(0);
    try {
      const file = join(runs[0]!, 'report.html');
      await writeFile(file, await buildReport(runs));
      const { page, errors } = await openReport(browser, `file://${file}`);
      await page.screenshot({ path: join(shots, 'report-two-conditions.png'), fullPage: true });
      const names = runs.map((run) => run.split('/').at(-1)!);

      const changed = await page.locator('section.what-changed li').allTextContents();
      expect(changed[0]).toBe(
        `${names[0]} → ${names[1]}: models.partial.replies[0].file before.yaml → after.yaml`,
      );

      // Read the deltas per condition from the page: the oracle's unchanged, the partial's up.
      const deltas = page.locator('table.run-deltas');
      const rows = await deltas.locator('tbody tr').evaluateAll((trs) =>
        trs.map((tr) => ({
          group: tr.querySelector('td[data-key=group]')?.textContent,
          key: tr.querySelector('td[data-key=key]')?.textContent,
          before: Number(tr.querySelector('td[data-key=v0]')?.getAttribute('data-value')),
          after: Number(tr.querySelector('td[data-key=v1]')?.getAttribute('data-value')),
          delta: Number(tr.querySelector('td[data-key=d1]')?.getAttribute('data-value')),
          text: tr.querySelector('td[data-key=d1]')?.textContent,
        })),
      );
      const strict = (group: string) =>
        rows.find((row) => row.group === group && row.key === 'tests.strict')!;
      expect(strict('ide/oracle/none').delta).toBe(0);
      expect(strict('ide/partial/none').delta).toBeCloseTo(gained / 12);
      expect(strict('ide/partial/none').after - strict('ide/partial/none').before).toBeCloseTo(gained / 12);
      expect(strict('ide/partial/none').text).toMatch(/^\+0\.\d+ \[\S+, \S+\] n=4$/);
      // Never a row pooling the conditions.
      expect(new Set(rows.map((row) => row.group))).toEqual(new Set(conditions));

      // Trials at a glance: solved x/y per trial, coloured by outcome.
      const glance = page.locator(`table.glance[data-run="${names[1]}"]`);
      const chip = glance.locator('a.chip[data-trial="task0.ide.partial.none.r1"]');
      expect(await chip.locator('.solved').textContent()).toBe('solved 3/3');
      expect(await chip.getAttribute('class')).toContain('tone-solved');
      const before = JSON.parse(
        await readFile(join(runs[0]!, 'trials', 'task0.ide.partial.none.r1', 'trial.json'), 'utf8'),
      );
      const solvedBefore = before.steps.filter(
        (step: { scores: Record<string, number> }) => step.scores['tests.strict'] === 1,
      ).length;
      const earlier = page.locator(
        `table.glance[data-run="${names[0]}"] a.chip[data-trial="task0.ide.partial.none.r1"]`,
      );
      expect(await earlier.locator('.solved').textContent()).toBe(`solved ${solvedBefore}/3`);
      expect(await earlier.getAttribute('class')).toContain(
        solvedBefore === 0 ? 'tone-unsolved' : 'tone-partial',
      );
      await page
        .locator(`section.trials[data-run="${names[1]}"]`)
        .screenshot({ path: join(shots, 'report-trials.png') });
      // A click on a chip opens its trial.
      await chip.click();
      await expect
        .poll(() =>
          page
            .locator(
              `section.trials[data-run="${names[1]}"] details.trial[data-trial="task0.ide.partial.none.r1"]`,
            )
            .getAttribute('open'),
        )
        .toBe('');
      // No section without content.
      expect(await emptySections(page)).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await Promise.all(runs.map((run) => rm(run, { recursive: true, force: true })));
    }
  }, 300_000);

  it('keeps a 60-step axis readable: whole-number step labels that do not overlap', async () => {
    const run = await mkdtemp(join(tmpdir(), 'longhaul-report-long-'));
    try {
      await writeSyntheticRun(run, { trials: 2, steps: 60 });
      const file = join(run, 'report.html');
      await writeFile(file, await buildReport([run]));
      const { page, errors } = await openReport(browser, `file://${file}`);
      const plot = page.locator('figure.plot[data-score="tests.strict"]');
      await plot.screenshot({ path: join(shots, 'report-60-steps.png') });
      const labels = await plot
        .locator('svg g[aria-label^="X-axis"] .role-axis-label text')
        .evaluateAll((texts) =>
          texts.map((text) => {
            const box = text.getBoundingClientRect();
            return { text: text.textContent ?? '', left: box.left, right: box.right };
          }),
        );
      expect(labels.length).toBeGreaterThanOrEqual(4);
      for (const label of labels) expect(label.text).toMatch(/^\d+$/);
      expect(Number(labels.at(-1)!.text)).toBeGreaterThanOrEqual(50);
      for (let i = 1; i < labels.length; i++) expect(labels[i]!.left).toBeGreaterThan(labels[i - 1]!.right);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await rm(run, { recursive: true, force: true });
    }
  }, 300_000);
});
