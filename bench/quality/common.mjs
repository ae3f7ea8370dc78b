// Shared by bench.mjs, instructions.mjs and agreement.mjs: the trees measured, the parse floor and
// how mccabe is run over them.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { findInFiles, parseFiles } from '@ast-grep/napi';
import { languageOfPath, matcherFor, resolveOptions } from '@longhaul/metrics';

export const pythonTree = '/usr/lib/python3.11';
export const scriptTree = fileURLToPath(new URL('../../node_modules/typescript/lib', import.meta.url));

/** Runs mccabe over the files in one /usr/bin/python3 process; returns its rows and its own timing. */
export function runMccabe(paths) {
  const driver = fileURLToPath(new URL('mccabe_all.py', import.meta.url));
  const started = performance.now();
  const result = spawnSync('/usr/bin/python3', [driver], {
    input: paths.join('\n'),
    maxBuffer: 1 << 30,
    encoding: 'utf8',
  });
  const wallMs = performance.now() - started;
  if (result.status !== 0) throw new Error(`mccabe failed (is python3-mccabe installed?): ${result.stderr}`);
  const lines = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const { seconds, cpu_seconds: cpuSeconds } = lines.pop();
  return { rows: lines, analysisMs: seconds * 1000, cpuMs: cpuSeconds * 1000, wallMs };
}

/**
 * The floor: the cheapest way to get the trees the metrics read, the way they get them. The
 * metrics parse with ast-grep on its own threads, from the files on disk (`findInFiles`); the
 * floor parses the same files with the same parser on the same threads (`parseFiles`), takes
 * each tree's root and drops it, as the metrics drop theirs, and does nothing else.
 */
export async function parseOnDisk(sources) {
  const paths = sources.map((file) => file.file);
  if (paths.some((path) => !path)) throw new Error('the parse floor needs sources read from disk');
  let parsed = 0;
  let failure;
  const expected = await parseFiles(paths, (error, root) => {
    if (error) failure ??= error;
    else if (root.root()) parsed++;
  });
  // The promise may settle before the last callbacks have run.
  while (parsed < expected && !failure) await new Promise((resolve) => setImmediate(resolve));
  if (failure) throw failure;
}

/**
 * The metrics' matching alone: `findInFiles` with the metrics' own matcher (the rule pack
 * included) over the same files, every node received and dropped, no analysis. Any analysis built
 * on this matcher costs at least this.
 */
export async function matchOnDisk(sources) {
  const byLanguage = new Map();
  for (const file of sources) {
    const spec = languageOfPath(file.path);
    if (!byLanguage.has(spec)) byLanguage.set(spec, []);
    byLanguage.get(spec).push(file.file);
  }
  for (const [spec, paths] of byLanguage) {
    let reported = 0;
    let failure;
    const expected = await findInFiles(
      spec.lang,
      { paths, matcher: matcherFor(spec, resolveOptions()).config },
      (error) => {
        if (error) failure ??= error;
        reported++;
      },
    );
    while (reported < expected) await new Promise((resolve) => setImmediate(resolve));
    if (failure) throw failure;
  }
}
