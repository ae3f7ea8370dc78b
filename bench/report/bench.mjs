#!/usr/bin/env node
// Build time, file size and open time in Chromium of the HTML report, for synthetic run stores of
// 10, 100 and 1,000 trials. Run after building: `npx turbo run build --filter=@longhaul/report`,
// then `node bench/report/bench.mjs [--trials 10,100,1000] [--steps 5] [--opens 3] [--chromium PATH]`.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildReport } from '@longhaul/report';
import { chromium } from 'playwright-core';
import { writeSyntheticRun } from './synthetic-run.mjs';

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '10,100,1000' },
    steps: { type: 'string', default: '5' },
    opens: { type: 'string', default: '3' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
  },
});
const sizes = values.trials.split(',').map(Number);
const steps = Number(values.steps);
const opens = Number(values.opens);

// The goals the issue sets for a 1,000-trial run.
const openGoalMs = 3000;
const sizeGoalBytes = 20_000_000;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const browser = await chromium.launch({
  executablePath: values.chromium,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});

/**
 * Milliseconds from navigation to the page saying every table and plot is drawn. The browser may
 * still be reading the trials' inert JSON blocks, which follow the page's script; a trial opened
 * before they are read waits for them.
 */
async function openTime(file) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  const started = performance.now();
  await page.goto(`file://${file}`, { timeout: 120_000, waitUntil: 'commit' });
  await page.waitForSelector('body[data-ready=true]', { timeout: 120_000 });
  const elapsed = performance.now() - started;
  const heap = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? 0);
  await page.close();
  if (errors.length > 0) throw new Error(`${file}: ${errors.join('; ')}`);
  return { elapsed, heap };
}

const rows = [];
try {
  for (const trials of sizes) {
    const dir = await mkdtemp(join(tmpdir(), 'longhaul-report-bench-'));
    try {
      await writeSyntheticRun(dir, { trials, steps });
      const started = performance.now();
      const html = await buildReport([dir]);
      const buildMs = performance.now() - started;
      const file = join(dir, 'report.html');
      await writeFile(file, html);
      const times = [];
      let heap = 0;
      for (let i = 0; i < opens; i++) {
        const opened = await openTime(file);
        times.push(opened.elapsed);
        heap = Math.max(heap, opened.heap);
      }
      rows.push({ trials, buildMs, bytes: Buffer.byteLength(html), openMs: median(times), heap });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
} finally {
  await browser.close();
}

const pad = (text, width) => String(text).padStart(width);
// Open times scale with what else the machine runs: the load average says how busy it was.
const load = loadavg()
  .map((n) => n.toFixed(1))
  .join(' ');
console.log(
  `report of synthetic runs (${steps} steps per trial; open time: median of ${opens}; load ${load})`,
);
console.log(
  `${pad('trials', 7)} ${pad('build', 9)} ${pad('size', 9)} ${pad('open', 9)} ${pad('JS heap', 9)}`,
);
for (const row of rows) {
  console.log(
    [
      pad(row.trials, 7),
      pad(`${(row.buildMs / 1000).toFixed(2)} s`, 9),
      pad(`${(row.bytes / 1e6).toFixed(1)} MB`, 9),
      pad(`${(row.openMs / 1000).toFixed(2)} s`, 9),
      pad(`${(row.heap / 1e6).toFixed(0)} MB`, 9),
    ].join(' '),
  );
}
const largest = rows.find((row) => row.trials === 1000);
if (largest) {
  const fine = largest.openMs < openGoalMs && largest.bytes < sizeGoalBytes;
  console.log(
    `1,000 trials: opens in ${(largest.openMs / 1000).toFixed(2)} s (goal < 3 s), ` +
      `${(largest.bytes / 1e6).toFixed(1)} MB (goal < 20 MB): ${fine ? 'within the goals' : 'OVER A GOAL'}`,
  );
  if (!fine) process.exitCode = 1;
}
