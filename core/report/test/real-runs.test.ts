import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, spawnCli, workDir } from '../../cli/test/fixtures/resume/spawn-cli.js';
import type { SummaryConditions } from '../src/index.js';
import { columnValues, launchChromium, openReport, openStep, plotMarks, shots } from './page.js';

/**
 * The report of real runs of the shipped examples, made by the real CLI and opened in Chromium.
 * Each example is narrowed with --set so that its run takes a minute or two.
 */
const work = workDir('longhaul-report-real-', [
  'core/kernel',
  'core/report',
  'core/cli',
  'core/metrics',
  'plugins/source-longhaul',
  'plugins/source-slump',
  'harnesses/oracle',
  'harnesses/ide',
  'plugins/environment-local',
  'plugins/scripts',
  'plugins/memory-basic',
  'plugins/memory-projectguard',
  'plugins/scorer-tests',
  'plugins/scorer-quality',
  'plugins/scorer-solve-rates',
  'plugins/scorer-faithfulness',
  'plugins/reporter-summary',
  'plugins/reporter-solve-rates',
  'core/gateway',
]);

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 180_000);
afterAll(() => browser?.close());

type Summary = SummaryConditions;

interface Figures {
  figures: (
    | {
        kind: 'table';
        reporter: string;
        id: string;
        columns: { key: string }[];
        rows: Record<string, unknown>[];
      }
    | { kind: 'plot'; reporter: string; id: string }
  )[];
}

const readJson = async <T>(path: string): Promise<T> => JSON.parse(await readFile(path, 'utf8')) as T;

/** Runs an example with the real CLI, writes its report, and checks the report in Chromium. */
async function checkExample(name: string, lead: string, set: string[]): Promise<void> {
  const runDir = join(work(), name);
  const args = ['run', join(repoRoot, `examples/${name}.yaml`), '--run-dir', runDir];
  const run = await spawnCli([...args, ...set.flatMap((value) => ['--set', value])], repoRoot).done;
  expect(run.code, run.stderr).toBe(0);
  const report = await spawnCli(['report', runDir], repoRoot).done;
  expect(report.code, report.stderr).toBe(0);

  const summary = await readJson<Summary>(join(runDir, 'summary.json'));
  const figures = await readJson<Figures>(join(runDir, 'figures.json'));
  const { page, errors } = await openReport(browser, `file://${join(runDir, 'report.html')}`);
  await page.screenshot({ path: join(shots, `${name}-overview.png`), fullPage: true });

  // The report opens with the benchmark's headline table, before any other table of scores, with
  // the trials and steps each row rests on and their errors.
  const tables = await page
    .locator('main table')
    .evaluateAll((found) =>
      found.map((table) => table.getAttribute('data-figure') ?? table.getAttribute('class')),
    );
  expect(tables[0]).toBe(lead);
  const headline = page.locator(`section.headline table[data-figure="${lead}"]`);
  expect(await headline.isVisible()).toBe(true);
  expect(await page.locator('section.headline th').allTextContents()).toEqual(
    expect.arrayContaining(['scored', 'errored', 'cancelled']),
  );
  expect(await page.locator('details.per-score').getAttribute('open')).toBeNull();

  // The per-condition table holds summary.json's numbers, condition by condition.
  const conditions = page.locator('table.conditions');
  const byCondition = [...summary.conditions].sort((a, b) => (a.condition < b.condition ? -1 : 1));
  expect(await conditions.locator('td[data-key=condition]').allTextContents()).toEqual(
    byCondition.map((row) => row.condition),
  );
  const column = (pick: (row: Summary['conditions'][number]) => number | null) => byCondition.map(pick);
  expect(await columnValues(conditions, 'trials')).toEqual(column((row) => row.trials));
  expect(await columnValues(conditions, 'steps')).toEqual(column((row) => row.steps));
  for (const rate of ['strict', 'iso', 'core'] as const)
    expect(await columnValues(conditions, rate)).toEqual(column((row) => row.solveRates[rate]));
  expect(await columnValues(conditions, 'costUsd')).toEqual(column((row) => row.costUsd));
  expect(await columnValues(conditions, 'durationMs')).toEqual(column((row) => row.durationMs));

  // Every score summary.json gives a condition, in the scores table.
  const scores = page.locator('table.condition-scores');
  const expected = [
    ...summary.conditions.flatMap((row) =>
      Object.entries(row.scores ?? {}).map(([key, value]) => ({ condition: row.condition, key, value })),
    ),
    ...(summary.experimentScores ?? []),
  ].filter((score) => typeof score.value === 'number');
  expect(expected.length).toBeGreaterThan(0);
  const shown = await scores.locator('tbody tr').evaluateAll((rows) =>
    rows.flatMap((row) => {
      const key = row.querySelector('td[data-key=score]')?.textContent ?? '';
      return [...row.querySelectorAll('td[data-value]')].map((cell) => ({
        condition: cell.getAttribute('data-key'),
        key,
        value: Number(cell.getAttribute('data-value')),
      }));
    }),
  );
  for (const score of expected) expect(shown).toContainEqual(score);

  // Every reporter table of figures.json, cell by cell.
  const figureTables = figures.figures.filter((figure) => figure.kind === 'table');
  expect(figureTables.length).toBeGreaterThan(0);
  for (const figure of figureTables) {
    const table = page.locator(`table[data-figure="${figure.reporter}.${figure.id}"]`);
    for (const col of figure.columns) {
      const cells = table.locator(`td[data-key="${col.key}"]`);
      const values = figure.rows.map((row) => row[col.key]);
      if (values.every((value) => typeof value === 'number'))
        expect(await columnValues(table, col.key), `${figure.id}.${col.key}`).toEqual(values);
      else if (values.every((value) => typeof value === 'string'))
        expect(await cells.allTextContents(), `${figure.id}.${col.key}`).toEqual(values);
    }
  }

  // Every plot drew marks; reporters' plots are among them, and at least one score over steps.
  const plots = await plotMarks(page);
  expect(plots.length).toBeGreaterThanOrEqual(1 + figures.figures.filter((f) => f.kind === 'plot').length);
  for (const plot of plots) expect(plot.marks, plot.title).toBeGreaterThan(0);

  // A trial's last step with a change opens with its diff and its cases, as the run store holds them.
  const trialId = (await readdir(join(runDir, 'trials'))).sort()[0]!;
  const stepsDir = join(runDir, 'trials', trialId, 'steps');
  let stepDir = '';
  let added: string | undefined;
  for (const folder of (await readdir(stepsDir)).sort().reverse()) {
    const diff = await readFile(join(stepsDir, folder, 'diff.patch'), 'utf8').catch(() => '');
    added = diff.split('\n').find((line) => line.startsWith('+') && !line.startsWith('+++'));
    stepDir = join(stepsDir, folder);
    if (added) break;
  }
  expect(added, `a step of ${trialId} changed something`).toBeDefined();
  const stored = await readJson<{
    step: string;
    details: Record<string, Record<string, { cases?: { id: string }[] }>>;
  }>(join(stepDir, 'scores.json'));
  const step = await openStep(page, trialId, stored.step);
  expect(await step.locator('pre.diff').textContent()).toContain(added);
  const cases = new Set(
    Object.values(stored.details)
      .flatMap((metrics) => Object.values(metrics))
      .flatMap((detail) => detail.cases ?? [])
      .map((found) => found.id),
  ).size;
  if (cases > 0) expect(await step.locator('table.cases tr').count()).toBe(cases);
  else expect(await step.textContent()).toContain('no cases');
  await step.locator('details.trajectory > summary').click();
  expect(await step.locator('details.trajectory .item').count()).toBeGreaterThan(0);
  await step.screenshot({ path: join(shots, `${name}-step.png`) });

  expect(errors).toEqual([]);
  await page.close();
}

describe.skipIf(!prerequisites.chromium())('the report of real runs, in Chromium', () => {
  it('scbench (worklog, two prompt strategies): tables, plots, a step with its diff and cases', async () => {
    await checkExample('scbench', 'solve-rates.table1', [
      'tasks=[worklog]',
      'script=[{id: checkpoints, label: just-solve, options: {prompt: just-solve, sandbox: fresh}}, {id: checkpoints, label: anti-slop, options: {prompt: anti-slop, sandbox: fresh}}]',
    ]);
  }, 600_000);

  it('slump (conversation and single-shot, without memory and with notes): tables, plots, a step', async () => {
    await checkExample('slump', 'slump.table', ['memory=[none, notes]']);
  }, 600_000);
});
