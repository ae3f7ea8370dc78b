import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';

/** Screenshots are test artefacts (gitignored), to look at after a run. */
export const shots = join(import.meta.dirname, '..', 'test-output');

export async function launchChromium(): Promise<Browser> {
  await mkdir(shots, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

export interface OpenedReport {
  page: Page;
  /** Console errors and uncaught page errors, as they come. */
  errors: string[];
}

/** Opens a report (file:// or http://) and waits until every plot is drawn. */
export async function openReport(browser: Browser, url: string): Promise<OpenedReport> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(url, { timeout: 120_000 });
  await page.waitForSelector('body[data-ready=true]', { timeout: 120_000 });
  return { page, errors };
}

/** Per plot on the page: its caption and how many marks (lines, points, bars, areas) it drew. */
export async function plotMarks(page: Page): Promise<{ title: string; marks: number }[]> {
  return page.locator('figure.plot').evaluateAll((figures) =>
    figures.map((figure) => ({
      title: figure.querySelector('figcaption')?.textContent ?? '',
      marks: figure.querySelectorAll(
        'svg .mark-line path, svg .mark-symbol path, svg .mark-rect path, svg .mark-area path',
      ).length,
    })),
  );
}

/** The numbers (data-value) of a table's column, top to bottom; null where a cell has none. */
export function columnValues(table: Locator, key: string): Promise<(number | null)[]> {
  return table.locator(`td[data-key="${key}"]`).evaluateAll((cells) =>
    cells.map((cell) => {
      const value = cell.getAttribute('data-value');
      return value === null ? null : Number(value);
    }),
  );
}

/** Opens a trial and one of its steps; resolves to the step's element. */
export async function openStep(page: Page, trialId: string, stepId: string): Promise<Locator> {
  await page.locator(`details.trial[data-trial="${trialId}"] > summary`).click();
  const step = page.locator(`details.trial[data-trial="${trialId}"] details.step[data-step="${stepId}"]`);
  await step.locator('> summary').click();
  await step.locator('pre.diff').waitFor();
  return step;
}

/** The headings of the page's sections that show nothing (no table, plot or list): none should. */
export function emptySections(page: Page): Promise<(string | undefined)[]> {
  return page
    .locator('main section.view')
    .evaluateAll((sections) =>
      sections
        .filter((section) => section.querySelectorAll('table, figure, li').length === 0)
        .map((section) => section.querySelector('h2')?.textContent ?? undefined),
    );
}
