import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { findInFiles, type SgNode } from '@ast-grep/napi';
import type { SourceFile } from './discovery.js';
import { analyzeFile, analyzeNodes, type FileAnalysis } from './file-analysis.js';
import { languageOfPath } from './languages/registry.js';
import type { LanguageSpec } from './languages/types.js';
import type { MetricsOptions } from './options.js';
import { matcherFor } from './project.js';

/** Writes sources that are not on disk into a temporary directory, so ast-grep can read them. */
async function onDisk(
  sources: readonly SourceFile[],
): Promise<{ files: Map<string, SourceFile>; cleanup(): Promise<void> }> {
  const files = new Map<string, SourceFile>();
  const missing = sources.filter((source) => !source.file);
  const dir = missing.length ? await mkdtemp(join(tmpdir(), 'longhaul-metrics-')) : undefined;
  for (const [index, source] of sources.entries()) {
    let file = source.file;
    if (!file) {
      // Flat numbered names: a snapshot's paths never decide where anything is written.
      file = join(dir!, `${index}${extname(source.path)}`);
      await writeFile(file, source.text);
    }
    files.set(file, source);
  }
  return { files, cleanup: async () => (dir ? rm(dir, { recursive: true, force: true }) : undefined) };
}

/**
 * Analyzes many files with one compiled matcher per language: ast-grep parses and matches them on
 * its worker threads while each file's result is read here. Files ast-grep does not report (an
 * extension it does not map to the language) are analyzed one by one, which compiles the matcher
 * again for each.
 */
export async function analyzeSources(
  sources: readonly SourceFile[],
  options: MetricsOptions,
): Promise<FileAnalysis[]> {
  const threads = Math.min(options.threads, sources.length);
  if (threads > 1) return analyzeInWorkers(sources, options, threads);
  const results = new Map<SourceFile, FileAnalysis>();
  const { files, cleanup } = await onDisk(sources);
  try {
    const groups = new Map<LanguageSpec, string[]>();
    for (const [file, source] of files) {
      const spec = languageOfPath(source.path);
      if (!spec) throw new Error(`${source.path}: no supported language for this file extension`);
      const group = groups.get(spec);
      if (group) group.push(file);
      else groups.set(spec, [file]);
    }
    for (const [spec, paths] of groups) {
      const matcher = matcherFor(spec, options);
      let failure: Error | undefined;
      let reported = 0;
      const expected = await findInFiles(
        spec.lang,
        { paths, matcher: matcher.config },
        (error, nodes: SgNode[]) => {
          reported++;
          if (error) {
            failure ??= error;
            return;
          }
          const file = nodes[0]?.getRoot().filename();
          const source = file === undefined ? undefined : files.get(file);
          if (!source || results.has(source)) return;
          results.set(source, analyzeNodes(source.path, source.text, spec, matcher, nodes, options));
        },
      );
      // The promise gives the number of files reported, and may settle before the last of their
      // callbacks has run: wait for them rather than parse those files a second time below.
      while (reported < expected) await new Promise((resolve) => setImmediate(resolve));
      if (failure) throw failure;
    }
  } finally {
    await cleanup();
  }
  return sources.map((source) => {
    const done = results.get(source);
    if (done) return done;
    const spec = languageOfPath(source.path)!;
    return analyzeFile(source.path, source.text, spec, matcherFor(spec, options), options);
  });
}

/**
 * The worker script is the built one: from the sources (tests read them directly) that is the
 * package's dist/, which `npm test` builds first.
 */
const workerScript = new URL(
  import.meta.url.endsWith('.ts') ? '../dist/worker.js' : './worker.js',
  import.meta.url,
);

/**
 * Splits the files into `threads` shares of about equal size (largest first, each to the lightest
 * share) and analyzes each share in a worker thread. Each file is analyzed exactly as on one
 * thread, so the results are the same; they come back in the order of `sources`.
 */
async function analyzeInWorkers(
  sources: readonly SourceFile[],
  options: MetricsOptions,
  threads: number,
): Promise<FileAnalysis[]> {
  const shares = Array.from({ length: threads }, () => ({ size: 0, indexes: [] as number[] }));
  const bySize = sources
    .map((_, index) => index)
    .sort((a, b) => sources[b]!.text.length - sources[a]!.text.length);
  for (const index of bySize) {
    const lightest = shares.reduce((min, share) => (share.size < min.size ? share : min));
    lightest.indexes.push(index);
    lightest.size += sources[index]!.text.length;
  }
  const workers: Worker[] = [];
  try {
    const done = await Promise.all(
      shares.map(({ indexes }) => {
        const worker = new Worker(workerScript, {
          workerData: {
            sources: indexes.map((index) => sources[index]),
            options: { ...options, threads: 1 },
          },
        });
        workers.push(worker);
        return new Promise<FileAnalysis[]>((resolve, reject) => {
          worker.once('message', resolve);
          worker.once('error', reject);
          worker.once('exit', (code) =>
            reject(new Error(`metrics worker thread ended (exit code ${code}) before its result`)),
          );
        });
      }),
    );
    const results = new Array<FileAnalysis>(sources.length);
    shares.forEach(({ indexes }, share) => {
      indexes.forEach((index, position) => {
        results[index] = done[share]![position]!;
      });
    });
    return results;
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
