/*
 * What the released harness's searches compute, run in a worker thread (see runOffThread), so each
 * function is self-contained. Upstream runs ripgrep in the container; here its matching is done on
 * the files the runner read, with JavaScript regular expressions for ripgrep's.
 */
import type { GlobPattern } from '../tools/search-job.js';

export interface RipgrepJob {
  files: { path: string; text: string }[];
  /** Absolute path of the workspace, which ripgrep's output lines start with. */
  root: string;
  query: string;
  caseSensitive: boolean;
  /** `first`: one entry per file, its first matching line (codebase_search); `lines`: every matching line. */
  mode: 'first' | 'lines';
  include?: GlobPattern;
  exclude?: GlobPattern;
  /** Lines returned in `lines` mode; the rest are counted. */
  shown: number;
  lineChars: number;
}

export interface RipgrepHit {
  file: string;
  line: number;
  text: string;
}

export type RipgrepOutput = { error: string } | { hits: RipgrepHit[]; total: number };

export function ripgrepJob(job: RipgrepJob): RipgrepOutput {
  let regex: RegExp;
  try {
    regex = new RegExp(job.query, job.caseSensitive ? '' : 'i');
  } catch (error) {
    return { error: (error as Error).message };
  }
  const glob = (pattern: GlobPattern | undefined) => {
    if (!pattern) return undefined;
    const compiled = new RegExp(pattern.source, pattern.flags);
    return (path: string) => compiled.test(pattern.basename ? path.slice(path.lastIndexOf('/') + 1) : path);
  };
  const include = glob(job.include);
  const exclude = glob(job.exclude);
  const cut = (line: string) =>
    line.length > job.lineChars
      ? `${line.slice(0, job.lineChars)}…[${line.length - job.lineChars} more characters]`
      : line;
  const hits: RipgrepHit[] = [];
  let total = 0;
  for (const file of job.files) {
    if ((include && !include(file.path)) || exclude?.(file.path)) continue;
    const lines = file.text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    for (let i = 0; i < lines.length; i++) {
      if (!regex.test(lines[i]!)) continue;
      total++;
      if (job.mode === 'first' || hits.length < job.shown)
        hits.push({ file: `${job.root}/${file.path}`, line: i + 1, text: cut(lines[i]!) });
      if (job.mode === 'first') break;
    }
  }
  return { hits, total };
}
