import { loadAssets } from './assets.js';
import { compareRuns } from './compare.js';
import { type LoadedRun, loadRun } from './load-run.js';
import { buildRunModel, type RunModel } from './model.js';
import { trialDetail } from './trial-detail.js';
import { detailLimit } from './truncate.js';

export interface ReportOptions {
  /**
   * Set by `longhaul view`: the page takes updates from `<base>events` (server-sent events) and
   * fetches a trial's steps from `<base>trials/<trial-id>` when it is opened, instead of carrying
   * them.
   */
  live?: { base: string };
  title?: string;
}

/** JSON that is safe inside a <script> element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** The report's data for some runs: the models and each trial's step content, truncated. */
export async function reportData(runs: LoadedRun[]): Promise<{
  models: RunModel[];
  details: Map<string, unknown>;
}> {
  const models = runs.map((run, index) => buildRunModel(run, index));
  const details = new Map<string, unknown>();
  for (const [r, run] of runs.entries()) {
    const model = models[r]!;
    const limit = detailLimit(model);
    for (const [t, trial] of run.trials.entries())
      details.set(model.trials[t]!.key, await trialDetail(trial, limit));
  }
  return { models, details };
}

/** One self-contained HTML page: data, Vega-Lite and the page's script inlined; no network. */
export async function renderReport(runs: LoadedRun[], options: ReportOptions = {}): Promise<string> {
  const assets = await loadAssets();
  // A live page fetches each trial's steps when it is opened; a file carries them all.
  const { models, details } = options.live
    ? { models: runs.map((run, index) => buildRunModel(run, index)), details: new Map<string, unknown>() }
    : await reportData(runs);
  const data = { runs: models, comparison: compareRuns(models) ?? null, live: options.live ?? null };
  const title = options.title ?? `longhaul report: ${models.map((model) => model.name).join(', ')}`;
  // Each trial's content sits in its own inert JSON block, parsed only when the trial is opened.
  // The blocks come last, so the page draws before the browser has read through them all.
  const blocks = [...details].map(
    ([key, steps]) => `<script type="application/json" id="trial-${key}">${scriptJson(steps)}</script>`,
  );
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${assets.style}</style>`,
    '</head><body>',
    `<header><h1>${escapeHtml(title)}</h1></header>`,
    '<main id="app"></main>',
    `<script type="application/json" id="report-data">${scriptJson(data)}</script>`,
    ...assets.scripts.map((script) => `<script>${script}</script>`),
    `<script>${assets.dom}</script>`,
    `<script>${assets.app}</script>`,
    ...blocks,
    '</body></html>',
  ].join('\n');
}

/** `longhaul report RUN…`: the HTML of the given run directories. */
export async function buildReport(runDirs: string[], options: ReportOptions = {}): Promise<string> {
  const runs: LoadedRun[] = [];
  for (const dir of runDirs) runs.push(await loadRun(dir));
  return renderReport(runs, options);
}
