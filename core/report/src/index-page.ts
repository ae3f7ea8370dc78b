import { loadAssets } from './assets.js';
import { escapeHtml, scriptJson } from './build-report.js';
import type { RunListing } from './run-listing.js';

/**
 * The viewer's first page: every run with its date, experiment, status, conditions, headline
 * scores and errors, in a table the reader sorts (by a column's header) and filters (by text, by
 * status, to runs with errors). The rows are drawn by the page's script from a data block.
 */
export async function indexPage(root: string, runs: RunListing[]): Promise<string> {
  const assets = await loadAssets();
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>longhaul runs: ${escapeHtml(root)}</title>`,
    `<style>${assets.style}</style>`,
    '</head><body>',
    `<header><h1>Runs in ${escapeHtml(root)}</h1></header>`,
    '<main id="runs"></main>',
    `<script type="application/json" id="runs-data">${scriptJson(runs)}</script>`,
    `<script>${assets.dom}</script>`,
    `<script>${assets.index}</script>`,
    '</body></html>',
  ].join('\n');
}
