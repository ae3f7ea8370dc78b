/*
 * What the searches compute, run in a worker thread (see runOffThread): each function here is
 * sent as its source text, so each is self-contained. Patterns come from the model and paths and
 * text from the agent's files: a backtracking pattern may take exponential time, which the
 * thread's time limit bounds instead of the runner's event loop.
 */

/** A glob compiled to a regular expression on the runner (picomatch), matched in the thread. */
export interface GlobPattern {
  source: string;
  flags: string;
  /** Matched against the file's name only (a glob without `/`). */
  basename: boolean;
}

export interface SearchJob {
  files: { path: string; text: string }[];
  /** `literal`: the query as text, ignoring case (codebase_search); `regex`: a JavaScript pattern. */
  mode: 'literal' | 'regex';
  query: string;
  caseSensitive: boolean;
  multiline: boolean;
  context: number;
  include?: GlobPattern;
  exclude?: GlobPattern;
  /** Extensions (`.py`) a file must have. */
  types?: string[];
  /** Matches returned; the rest are counted. */
  shown: number;
  /** Characters of a matched or context line returned. */
  lineChars: number;
}

export interface SearchMatch {
  file: string;
  line: number;
  text: string;
  context?: string[];
}

export type SearchOutput = { error: string } | { matches: SearchMatch[]; total: number; files: number };

export function searchJob(job: SearchJob): SearchOutput {
  const cut = (line: string) =>
    line.length > job.lineChars
      ? `${line.slice(0, job.lineChars)}…[${line.length - job.lineChars} more characters]`
      : line;
  const glob = (pattern: GlobPattern | undefined) => {
    if (!pattern) return undefined;
    const regex = new RegExp(pattern.source, pattern.flags);
    return (path: string) => regex.test(pattern.basename ? path.slice(path.lastIndexOf('/') + 1) : path);
  };
  const include = glob(job.include);
  const exclude = glob(job.exclude);
  let regex: RegExp | undefined;
  if (job.mode === 'regex') {
    try {
      regex = new RegExp(job.query, `g${job.caseSensitive ? '' : 'i'}${job.multiline ? 'ms' : ''}`);
    } catch (error) {
      return { error: `Invalid regular expression: ${(error as Error).message}` };
    }
  }
  const needle = job.query.toLowerCase();
  const matches: SearchMatch[] = [];
  let total = 0;
  let searched = 0;
  for (const file of job.files) {
    if ((include && !include(file.path)) || exclude?.(file.path)) continue;
    const dot = file.path.lastIndexOf('.');
    const extension = dot > file.path.lastIndexOf('/') ? file.path.slice(dot).toLowerCase() : '';
    if (job.types && !job.types.includes(extension)) continue;
    searched++;
    const lines = file.text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    const found = (index: number, text?: string) => {
      total++;
      if (matches.length >= job.shown) return;
      const match: SearchMatch = { file: file.path, line: index + 1, text: cut(text ?? lines[index]!) };
      if (job.context > 0) {
        const from = Math.max(0, index - job.context);
        match.context = lines
          .slice(from, index + job.context + 1)
          .map((line, i) => `${from + i + 1}${from + i === index ? ':' : '-'}${cut(line)}`);
      }
      matches.push(match);
    };
    if (job.multiline && regex) {
      // Line numbers counted forward from the previous match: one pass over the text.
      let line = 0;
      let at = 0;
      for (const m of file.text.matchAll(regex)) {
        for (let i = at; i < m.index; i++) if (file.text.charCodeAt(i) === 10) line++;
        at = m.index;
        found(line, m[0]);
        if (m[0] === '') break;
      }
    } else {
      lines.forEach((line, i) => {
        if (regex) {
          regex.lastIndex = 0;
          if (regex.test(line)) found(i);
        } else if (line.toLowerCase().includes(needle)) found(i);
      });
    }
  }
  return { matches, total, files: searched };
}

/** The paths a glob matches, in their order. */
export function globJob(job: { paths: string[]; glob: GlobPattern }): string[] {
  const regex = new RegExp(job.glob.source, job.glob.flags);
  return job.paths.filter((path) =>
    regex.test(job.glob.basename ? path.slice(path.lastIndexOf('/') + 1) : path),
  );
}
