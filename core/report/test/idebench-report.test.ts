import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idebenchPackages, repoRoot, spawnCli, workDir } from '../../cli/test/fixtures/resume/spawn-cli.js';
import type { SummaryConditions } from '../src/index.js';
import { columnValues, emptySections, launchChromium, openReport, plotMarks, shots } from './page.js';

/**
 * The report of examples/idebench.yaml as it ships (the ide harness with the oracle model and a
 * model that changes nothing, three tasks, three repeats), made by the real CLI: IDE-Bench's
 * figures come from its scorers (pass-at-k, tool-use), with no reporter of its own.
 */
const work = workDir('longhaul-report-idebench-', idebenchPackages);

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 180_000);
afterAll(() => browser?.close());

describe.skipIf(!prerequisites.chromium())('the IDE-Bench example in the report, in Chromium', () => {
  it('leads with pass@1 and pass@k per model with Wilson intervals, then its section; no empty section', async () => {
    const runDir = join(work(), 'idebench');
    const run = await spawnCli(
      ['run', join(repoRoot, 'examples/idebench.yaml'), '--run-dir', runDir],
      repoRoot,
    ).done;
    expect(run.code, run.stderr).toBe(0);
    const report = await spawnCli(['report', runDir], repoRoot).done;
    expect(report.code, report.stderr).toBe(0);
    const summary = JSON.parse(await readFile(join(runDir, 'summary.json'), 'utf8')) as SummaryConditions;
    const experiment = (key: string, condition: string) =>
      summary.experimentScores?.find((score) => score.key === key && score.condition === condition)?.value;

    const { page, errors } = await openReport(browser, `file://${join(runDir, 'report.html')}`);
    await page.screenshot({ path: join(shots, 'idebench-overview.png'), fullPage: true });

    // The headline is the pass-at-k scorer's table: pass@1 and pass@3 per model, as summary.json has them.
    const firstTable = await page.locator('main table').first().getAttribute('data-figure');
    expect(firstTable).toBe('pass-at-k.pass-at-k');
    const headline = page.locator('section.headline table[data-figure="pass-at-k.pass-at-k"]');
    const conditions = await headline.locator('td[data-key=condition]').allTextContents();
    expect(conditions).toEqual(['nochange/checkpoints/none', 'oracle/checkpoints/none']);
    expect(await headline.locator('td[data-key=model]').allTextContents()).toEqual(['nochange', 'oracle']);
    for (const k of [1, 3]) {
      const values = await columnValues(headline, `pass_at_${k}`);
      expect(values).toEqual(conditions.map((c) => experiment(`pass-at-k.pass_at_${k}`, c)));
      const intervals = await headline.locator(`td[data-key=pass_at_${k}_ci]`).allTextContents();
      for (const [i, condition] of conditions.entries()) {
        const low = experiment(`pass-at-k.pass_at_${k}.wilson_low`, condition) as number;
        const high = experiment(`pass-at-k.pass_at_${k}.wilson_high`, condition) as number;
        expect(intervals[i]).toBe(`[${(low * 100).toFixed(1)}%, ${(high * 100).toFixed(1)}%]`);
      }
    }
    // The oracle passes everything, the null model nothing.
    expect(await columnValues(headline, 'pass_at_1')).toEqual([0, 1]);
    expect(await page.locator('section.headline th').allTextContents()).toEqual(
      expect.arrayContaining(['n trials', 'scored', 'errored']),
    );

    // IDE-Bench's section: pass@k with error bars, the task × model heatmap, tool usage, failure modes.
    const section = page.locator('section.benchmark[data-section="IDE-Bench"]');
    const figures = await section
      .locator('[data-figure]')
      .evaluateAll((found) => found.map((f) => f.getAttribute('data-figure')));
    expect(figures).toEqual([
      'pass-at-k.pass-at-k-plot',
      'pass-at-k.task-model',
      'tool-use.tool-usage',
      'tool-use.calls-per-tool',
      'tool-use.failure-modes',
    ]);
    const heatmap = section.locator('[data-figure="pass-at-k.task-model"]');
    expect(await heatmap.locator('svg .mark-rect.role-mark path').count()).toBe(6);
    await heatmap.screenshot({ path: join(shots, 'idebench-heatmap.png') });
    // The Wilson intervals as error bars: one per bar.
    expect(
      await section.locator('[data-figure="pass-at-k.pass-at-k-plot"] svg .mark-rule.role-mark line').count(),
    ).toBe(4);
    for (const plot of await plotMarks(page)) expect(plot.marks, plot.title).toBeGreaterThan(0);

    // Single-step tasks: no plots over steps; and no heading without content.
    expect(await page.locator('h2', { hasText: 'Scores over steps' }).count()).toBe(0);
    expect(await emptySections(page)).toEqual([]);

    // Each trial solved x/y: the oracle's 1/1, the null model's 0/1.
    const chips = page.locator('table.glance a.chip .solved');
    expect(new Set(await chips.allTextContents())).toEqual(new Set(['solved 1/1', 'solved 0/1']));
    expect(await page.locator('table.glance a.chip.tone-solved').count()).toBe(9);
    expect(await page.locator('table.glance a.chip.tone-unsolved').count()).toBe(9);
    expect(errors).toEqual([]);
    await page.close();
  }, 600_000);
});
