import { basename, join } from 'node:path';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliProcess,
  quickstartPackages,
  repoRoot,
  spawnCli,
  waitForEvent,
  workDir,
} from '../../cli/test/fixtures/resume/spawn-cli.js';
import { columnValues, launchChromium, shots } from './page.js';

const work = workDir('longhaul-view-live-', [...quickstartPackages, 'core/report']);

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 180_000);
afterAll(() => browser?.close());

/** Starts `longhaul view` and resolves to the URL it prints. */
async function startView(dir: string): Promise<{ view: CliProcess; url: string }> {
  const view = spawnCli(['view', dir], repoRoot);
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    view.child.stdout?.on('data', (chunk) => {
      out += chunk;
      const found = /viewer: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (found) resolve(found[1]!);
    });
    view.done.then((end) => reject(new Error(`view ended before printing its URL: ${end.stderr}`)));
  });
  return { view, url };
}

describe.skipIf(!prerequisites.chromium())('longhaul view, over a run as it runs', () => {
  it('shows a step complete without a reload, and stops cleanly on SIGINT and SIGTERM', async () => {
    const runDir = join(work(), 'quickstart');
    const run = spawnCli(['run', join(repoRoot, 'examples/quickstart.yaml'), '--run-dir', runDir], repoRoot);
    await waitForEvent(runDir, (event) => event.type === 'trial.start', 120_000);
    const { view, url } = await startView(runDir);

    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(url);
    await page.locator(`a[href="runs/${basename(runDir)}/"]`).click();
    await page.waitForSelector('body[data-ready=true]', { timeout: 120_000 });
    // Set on this document: a reload would lose it.
    await page.evaluate(() => {
      (globalThis as unknown as { sameDocument: boolean }).sameDocument = true;
    });
    const steps = async () => (await columnValues(page.locator('table.conditions'), 'steps'))[0] ?? 0;
    const before = await steps();
    expect(before).toBeLessThan(4);
    await expect.poll(steps, { timeout: 300_000, interval: 500 }).toBeGreaterThan(before);
    expect(Number(await page.locator('body').getAttribute('data-updates'))).toBeGreaterThan(0);
    expect(
      await page.evaluate(() => (globalThis as unknown as { sameDocument?: boolean }).sameDocument),
    ).toBe(true);

    // The trial opens with the steps done so far, fetched from the viewer.
    await page.locator('details.trial > summary').first().click();
    const first = page.locator('details.step').first();
    await first.locator('> summary').click();
    await expect.poll(() => first.locator('pre.diff').textContent(), { timeout: 120_000 }).toContain('+');
    await page.screenshot({ path: join(shots, 'view-live.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();

    view.child.kill('SIGINT');
    const stopped = await view.done;
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toContain('viewer stopped (SIGINT)');

    const finished = await run.done;
    expect(finished.code, finished.stderr).toBe(0);
    const again = await startView(join(runDir, '..'));
    again.view.child.kill('SIGTERM');
    const ended = await again.view.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stdout).toContain('viewer stopped (SIGTERM)');
  }, 600_000);
});
