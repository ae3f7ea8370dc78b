import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM helper shared with the benchmark, without types
import { writeSyntheticRun } from '../../../bench/report/synthetic-run.mjs';
import { buildReport } from '../src/index.js';

// Screenshots are test artefacts (gitignored), to look at after a run.
const shots = join(import.meta.dirname, '..', 'test-output');
let browser: Browser;
let dir: string;

beforeAll(async () => {
  await mkdir(shots, { recursive: true });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
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
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`file://${file}`, { timeout: 120_000 });
    await page.waitForSelector('body[data-ready=true]', { timeout: 120_000 });
    await page.screenshot({ path: join(shots, 'report-overview.png'), fullPage: true });

    const strict = await page
      .locator('table.conditions td[data-key=strict]')
      .evaluateAll((cells) => cells.map((cell) => Number(cell.getAttribute('data-value'))));
    expect(strict).toEqual([0.5, 2 / 3]);
    expect(await page.locator('table.conditions td[data-key=iso]').nth(1).textContent()).toBe('-');

    const plots = page.locator('figure.plot');
    const count = await plots.count();
    expect(count).toBeGreaterThanOrEqual(4);
    for (let index = 0; index < count; index++) {
      expect(
        await plots.nth(index).locator('svg .mark-line path, svg .mark-symbol path').count(),
      ).toBeGreaterThan(0);
    }

    await page.locator('details.trial > summary').first().click();
    await page.locator('details.step > summary').first().click();
    const step = page.locator('details.step').first();
    await expect.poll(() => step.locator('pre.diff').textContent()).toContain('+line 0 of step 1');
    expect(await step.locator('table.cases tr').count()).toBe(3);
    await step.screenshot({ path: join(shots, 'report-step.png') });
    expect(errors).toEqual([]);
    await page.close();
  }, 300_000);
});
