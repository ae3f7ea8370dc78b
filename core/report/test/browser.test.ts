import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

describe('report in Chromium', () => {
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
    expect(await page.locator('p.legend').first().textContent()).toContain("'missing': no trial");
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
});
