import { createHash } from 'node:crypto';
import type { SourceFile } from './discovery.js';
import type { FileAnalysis } from './file-analysis.js';
import type { MetricsOptions } from './options.js';

/**
 * The per-file results of one `analyzeProject` call, kept to measure the next snapshot: a file
 * whose path and content hash are unchanged reuses its result instead of being parsed again.
 * Results are valid only for the options they were measured with (threads aside).
 */
export interface PreviousResults {
  /** The options the results were measured with (see `optionsKey`). */
  options: string;
  /** By path: the SHA-256 of the file's text and its analysis. */
  files: ReadonlyMap<string, { hash: string; analysis: FileAnalysis }>;
}

export function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Every option that changes a file's analysis; the thread count does not. */
export function optionsKey(options: MetricsOptions): string {
  const { threads: _threads, disabledRules, onlyRules, ...rest } = options;
  return JSON.stringify({
    ...rest,
    disabledRules: [...disabledRules].sort(),
    onlyRules: onlyRules ? [...onlyRules].sort() : null,
  });
}

/**
 * A previous result as a fresh analysis: the clone-dependent fields depend on every file, so they
 * are reset to what `analyzeNodes` gives before the project-level clone pass sets them.
 */
function fresh(analysis: FileAnalysis): FileAnalysis {
  return {
    ...analysis,
    metrics: { ...analysis.metrics, cloneLines: 0, verboseLines: analysis.flagged.size },
  };
}

/**
 * Splits `sources` into those with a reusable previous result and those to analyze. `hashes`
 * holds each source's content hash, in order.
 */
export function reusable(
  sources: readonly SourceFile[],
  options: MetricsOptions,
  previous: PreviousResults | undefined,
): { hashes: string[]; reused: (FileAnalysis | undefined)[]; missing: SourceFile[] } {
  const usable = previous && previous.options === optionsKey(options) ? previous.files : undefined;
  const hashes = sources.map((source) => contentHash(source.text));
  const missing: SourceFile[] = [];
  const reused = sources.map((source, index) => {
    const stored = usable?.get(source.path);
    if (stored && stored.hash === hashes[index]) return fresh(stored.analysis);
    missing.push(source);
    return undefined;
  });
  return { hashes, reused, missing };
}
