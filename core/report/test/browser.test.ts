import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM helper shared with the benchmark, without types
import { writeSyntheticRun } from '../../../bench/report/synthetic-run.mjs';
import { buildReport } from '../src/index.js';
import { columnValues, launchChromium, openReport, plotMarks, shots } from './page.js';

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

      const deltas = page.locator('table.run-deltas');
      const scores = await deltas.locator('td[data-key=key]').allTextContents();
      expect(scores).toContain('tests.strict');
      for (const key of ['v0', 'v1', 'delta']) {
        const values = await columnValues(deltas, key);
        expect(values, key).toHaveLength(scores.length);
        for (const value of values) expect(value, key).not.toBeNull();
        const shown = await deltas.locator(`td[data-key=${key}]`).allTextContents();
        expect(shown.filter((text) => text === '-' || text === '–')).toEqual([]);
      }
      const strict = scores.indexOf('tests.strict');
      // task0 step 3: 1 in the oracle run, 0 in the ide run; 12 task × step cells in all.
      expect((await columnValues(deltas, 'delta'))[strict]).toBeCloseTo(-1 / 12);

      // One plot per score, both runs in it: one legend with both runs, lines on one scale.
      const overlaid = page.locator('section.overlaid figure.plot');
      const keys = await overlaid.evaluateAll((figures) => figures.map((f) => f.getAttribute('data-score')));
      expect(keys).toContain('tests.strict');
      expect(new Set(keys).size).toBe(keys.length);
      for (let i = 0; i < keys.length; i++) {
        const legend = await overlaid.nth(i).locator('svg .role-legend-label text').allTextContents();
        expect(legend, keys[i]!).toEqual([runs[1]!.split('/').at(-1), runs[0]!.split('/').at(-1)].sort());
        expect(await overlaid.nth(i).locator('svg .mark-line path').count(), keys[i]!).toBe(2);
      }
      expect(await page.locator('section.plots:not(.overlaid)').count()).toBe(0);
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
