import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { processStartTime } from '@longhaul/core';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM helper shared with the benchmark, without types
import { writeSyntheticRun } from '../../../bench/report/synthetic-run.mjs';
import { startViewer, type Viewer } from '../src/index.js';
import { launchChromium, shots } from './page.js';

let browser: Browser;
let dir: string;
let viewer: Viewer;
/** A process standing in for the writer of a running run. */
let writer: ChildProcess;

const event = (ts: string, body: Record<string, unknown>) => JSON.stringify({ ts, ...body });

/** A synthetic run with lock.json, events of how it ended, and summary.json's solve rates. */
async function writeRun(
  name: string,
  options: {
    started: string;
    experiment: string;
    end?: string;
    strict: number;
    faulty?: boolean;
    planned?: number;
    running?: boolean;
  },
) {
  const run = join(dir, name);
  await writeSyntheticRun(run, { trials: 2, steps: 2, conditions: ['oracle/just-solve/none'] });
  await writeFile(
    join(run, 'lock.json'),
    JSON.stringify({ experiment: { name: options.experiment, file: 'x.yaml' }, createdAt: options.started }),
  );
  const events = [
    event(options.started, { type: 'run.start', runId: name, runDir: run, trials: options.planned ?? 2 }),
  ];
  if (options.end) events.push(event(options.started, { type: 'run.end', runId: name, status: options.end }));
  await writeFile(join(run, 'events.jsonl'), `${events.join('\n')}\n`);
  await writeFile(
    join(run, 'summary.json'),
    JSON.stringify({
      conditions: [
        {
          condition: 'oracle/just-solve/none',
          trials: 2,
          steps: 4,
          solveRates: { strict: options.strict, iso: null, core: null },
          costUsd: 0,
          durationMs: 1000,
        },
      ],
    }),
  );
  if (options.running) {
    // A live process holds the run's writer lock, as `longhaul run` does; one trial is still going.
    await writeFile(
      join(run, 'writer.lock'),
      JSON.stringify({
        pid: writer.pid,
        host: hostname(),
        processStart: await processStartTime(writer.pid!),
        since: options.started,
        command: 'longhaul run',
      }),
    );
    const file = join(run, 'trials', 'task1.oracle.just-solve.none.r1', 'trial.json');
    const record = JSON.parse(await readFile(file, 'utf8'));
    record.status = 'running';
    await writeFile(file, JSON.stringify(record));
  }
  if (options.faulty) {
    // The second trial's last step failed with a sandbox fault.
    const file = join(run, 'trials', 'task1.oracle.just-solve.none.r1', 'trial.json');
    const record = JSON.parse(await readFile(file, 'utf8'));
    record.status = 'error:sandbox';
    record.steps[1].status = 'error:sandbox';
    await writeFile(file, JSON.stringify(record));
  }
}

beforeAll(async () => {
  browser = await launchChromium();
  dir = await mkdtemp(join(tmpdir(), 'longhaul-viewer-index-'));
  writer = spawn('sleep', ['600'], { stdio: 'ignore' });
  await writeRun('scbench-20261127-090000', {
    started: '2026-11-27T09:00:00.000Z',
    experiment: 'scbench',
    end: 'ok',
    strict: 0.75,
  });
  await writeRun('slump-20261128-100000', {
    started: '2026-11-28T10:00:00.000Z',
    experiment: 'slump',
    end: 'error',
    strict: 0.25,
    faulty: true,
  });
  await writeRun('quickstart-20261126-080000', {
    started: '2026-11-26T08:00:00.000Z',
    experiment: 'quickstart',
    strict: 0.5,
  });
  await writeRun('worklog-20261129-110000', {
    started: '2026-11-29T11:00:00.000Z',
    experiment: 'worklog',
    strict: 0.5,
    planned: 8,
    running: true,
  });
  viewer = await startViewer({ path: dir });
}, 180_000);

afterAll(async () => {
  await viewer?.close();
  await browser?.close();
  writer?.kill();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The index's rows as shown: run, status, headline and errors cells. */
const rows = (page: Page) =>
  page.locator('table.runs tbody tr').evaluateAll((found) =>
    found.map((row) => {
      const text = (key: string) => row.querySelector(`td[data-key=${key}]`)?.textContent ?? '';
      return {
        run: text('name'),
        status: text('status'),
        trials: text('trials'),
        headline: text('headline'),
        errors: text('errors'),
      };
    }),
  );

describe.skipIf(!prerequisites.chromium())('the viewer in Chromium', () => {
  it('lists runs newest first with status, headline and errors; sorts; filters to runs with errors', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 700 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(viewer.url);
    await page.waitForSelector('body[data-ready=true]');
    await page.screenshot({ path: join(shots, 'viewer-index.png'), fullPage: true });
    expect(await rows(page)).toEqual([
      {
        run: 'worklog-20261129-110000',
        status: 'running',
        // Live: 1 of the 8 trials ended, 1 runs; the rate is over the steps scored so far.
        trials: '1 of 8 (1 running)',
        headline: 'strict 75.0% oracle/just-solve/none (so far)',
        errors: '0',
      },
      {
        run: 'slump-20261128-100000',
        status: 'failed',
        trials: '2 of 2',
        headline: 'strict 25.0% oracle/just-solve/none',
        errors: '1 step(s), 1 trial(s)',
      },
      {
        run: 'scbench-20261127-090000',
        status: 'finished',
        trials: '2 of 2',
        headline: 'strict 75.0% oracle/just-solve/none',
        errors: '0',
      },
      {
        // No end and no process writing it: killed, for `longhaul resume` to finish.
        run: 'quickstart-20261126-080000',
        status: 'interrupted',
        trials: '2 of 2',
        // From the trial records: a summary.json of an earlier session would be out of date.
        headline: 'strict 75.0% oracle/just-solve/none',
        errors: '0',
      },
    ]);
    const experiments = await page.locator('td[data-key=experiment]').allTextContents();
    expect(experiments).toEqual(['worklog', 'slump', 'scbench', 'quickstart']);

    // Sorted by the headline score, best first, with a click on its header.
    await page.locator('th[data-key=headline]').click();
    expect((await rows(page)).map((row) => row.headline.split(' ')[1])).toEqual([
      '75.0%',
      '75.0%',
      '75.0%',
      '25.0%',
    ]);

    await page.locator('#errors-only').check();
    expect((await rows(page)).map((row) => row.run)).toEqual(['slump-20261128-100000']);
    expect(await page.locator('.filters .count').textContent()).toBe('1 of 4 runs');
    await page.screenshot({ path: join(shots, 'viewer-index-errors.png'), fullPage: true });
    await page.locator('#errors-only').uncheck();
    await page.locator('#filter').fill('quick');
    expect((await rows(page)).map((row) => row.run)).toEqual(['quickstart-20261126-080000']);

    // A running run's page says so, with k of n trials, above its figures so far.
    await page.goto(`${viewer.url}runs/worklog-20261129-110000/`);
    await page.waitForSelector('body[data-ready=true]', { timeout: 120_000 });
    expect(await page.locator('p.run-state').textContent()).toBe(
      'running: 1 of 8 trials ended, 1 running; the figures are of the trials so far',
    );
    await page.goto(`${viewer.url}runs/quickstart-20261126-080000/`);
    await page.waitForSelector('body[data-ready=true]', { timeout: 120_000 });
    expect(await page.locator('p.run-state').textContent()).toBe(
      'interrupted (killed: no process writes it): 2 of 2 trials ended; the figures are of the trials so far; `longhaul resume` finishes it',
    );
    expect(errors).toEqual([]);
    await page.close();
  }, 300_000);

  it("shows a trial's step as a conversation: the prompt, each tool call with its result", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(viewer.url);
    await page.locator('a', { hasText: 'scbench-20261127-090000' }).click();
    await page.waitForSelector('body[data-ready=true]', { timeout: 120_000 });
    const trial = page.locator('details.trial[data-trial="task0.oracle.just-solve.none.r1"]');
    await trial.locator('> summary').click();
    const step = trial.locator('details.step[data-step="step1"]');
    await step.locator('> summary').click();
    const transcript = step.locator('.transcript');
    await transcript.waitFor();
    const items = transcript.locator('> .item, > details.item');
    // The prompt comes first; long (1,600 characters), it is collapsed behind its first line.
    const prompt = items.first();
    expect(await prompt.locator('> b').textContent()).toBe('prompt');
    expect(await prompt.locator('details.long > summary').textContent()).toMatch(
      /^# Step 1 … \(4 lines, \d+ characters\)$/,
    );
    expect(await prompt.locator('pre').isVisible()).toBe(false);
    await prompt.locator('details.long > summary').click();
    expect(await prompt.locator('pre').textContent()).toContain('Add a feature to the tool.');
    const call = transcript.locator('.item.tool-call').first();
    expect(await call.locator('> b').textContent()).toBe('tool call: write_file');
    expect(await call.locator('pre.input').textContent()).toContain('"path": "f0.py"');
    // Its result sits beneath it, shown.
    expect(await call.locator('.tool-output pre').textContent()).toBe('wrote f0.py');
    expect(await call.locator('.tool-output pre').isVisible()).toBe(true);
    expect(await transcript.locator('.item.tool-call').count()).toBe(10);
    expect(await transcript.locator('.item.message.assistant').textContent()).toContain('Done.');
    await step.screenshot({ path: join(shots, 'viewer-transcript.png') });
    expect(errors).toEqual([]);
    await page.close();
  }, 300_000);
});
