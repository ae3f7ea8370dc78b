import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The page's own script and style (assets/ sits beside src/ and dist/ alike). */
const own = (name: string) => fileURLToPath(new URL(`../assets/${name}`, import.meta.url));

export interface Assets {
  scripts: string[];
  style: string;
  app: string;
  /** What both pages' scripts use to make elements; it comes before them. */
  dom: string;
  /** The script of the viewer's index of runs. */
  index: string;
}

let cached: Promise<Assets> | undefined;

/** Vega, Vega-Lite and vega-embed (their browser builds) and the page's script, to inline. */
export function loadAssets(): Promise<Assets> {
  cached ??= (async () => ({
    scripts: await Promise.all(
      // The packages export only their modules; the browser builds sit beside them in build/.
      [
        ['vega', 'vega.min.js'],
        ['vega-lite', 'vega-lite.min.js'],
        ['vega-embed', 'vega-embed.min.js'],
      ].map(([name, file]) => readFile(join(dirname(require.resolve(name!)), file!), 'utf8')),
    ),
    style: await readFile(own('report.css'), 'utf8'),
    app: await readFile(own('app.js'), 'utf8'),
    dom: await readFile(own('dom.js'), 'utf8'),
    index: await readFile(own('index.js'), 'utf8'),
  }))();
  return cached;
}
