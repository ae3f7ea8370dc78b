import { posix } from 'node:path';
import { formatSize } from '@longhaul/core';
import picomatch from 'picomatch';
import { z } from 'zod';
import { ignoredDirs, ignoredPath } from './files.js';
import { limits } from './limits.js';
import { OffThreadTimeout, runOffThread } from './off-thread.js';
import { type GlobPattern, globJob, type SearchJob, type SearchOutput, searchJob } from './search-job.js';
import { decode, defineTool, fail, isBinary, type ToolContext, type ToolResult } from './tool.js';

interface SourceFiles {
  files: { path: string; text: string }[];
  /** Files left out because the search's byte budget was spent. */
  leftOut: number;
}

/**
 * The text files of the workspace the agent may see, under `dirs` (workspace-relative) when given:
 * no ignored folder is entered (`skip`: by default the paper's ignore list), no protected path
 * read, and only files up to the per-file limit are read, until the search's byte budget is spent.
 * So a search holds at most that budget, whatever the workspace holds.
 */
export async function sourceFiles(
  ctx: ToolContext,
  dirs: string[] = ['.'],
  skip: (name: string) => boolean = (name) => ignoredDirs.has(name),
): Promise<SourceFiles> {
  const roots = dirs.map((dir) => ctx.policy.resolve(dir));
  const under = (path: string) =>
    roots.some((root) => root === '.' || path === root || path.startsWith(`${root}/`));
  const above = (path: string) => roots.some((root) => root.startsWith(`${path}/`));
  // A folder named as a root is searched even when `skip` would leave it out below one.
  const named = (path: string) => roots.includes(path) || above(path);
  const skipped = (path: string) => {
    const root = roots.find((r) => r !== '.' && (path === r || path.startsWith(`${r}/`)));
    const below = root === undefined ? path : path.slice(root.length + 1);
    return below !== '' && below.split('/').some(skip);
  };
  let budget: number = limits.searchBytes;
  let leftOut = 0;
  const pulled = await ctx.sandbox.pull({
    maxFileBytes: limits.searchFileBytes,
    only: (entry) => {
      if ((!named(entry.path) && skip(posix.basename(entry.path))) || ctx.policy.blocked(entry.path))
        return false;
      if (entry.type === 'dir') return under(entry.path) || above(entry.path);
      if (entry.type !== 'file' || !under(entry.path) || entry.size > limits.searchFileBytes) return false;
      if (entry.size > budget) {
        leftOut++;
        return false;
      }
      budget -= entry.size;
      return true;
    },
  });
  const files = pulled
    .filter(
      (file) =>
        under(file.path) &&
        !skipped(file.path) &&
        !ctx.policy.blocked(file.path) &&
        file.data.length <= limits.searchFileBytes &&
        !isBinary(file.data),
    )
    .map((file) => ({ path: file.path, text: decode(file.data) }));
  return { files, leftOut };
}

export function globPattern(pattern: string | undefined): GlobPattern | undefined {
  if (!pattern) return undefined;
  const regex = picomatch.makeRe(pattern, { dot: true });
  return { source: regex.source, flags: regex.flags, basename: !pattern.includes('/') };
}

/** Runs a search job off the runner's thread, within the session's search time limit. */
export async function offThread<Input, Output>(
  ctx: ToolContext,
  job: (input: Input) => Output,
  input: Input,
): Promise<Output | { timedOut: number }> {
  const seconds = ctx.options.searchTimeoutSeconds;
  try {
    return await runOffThread(job, input, {
      timeoutMs: seconds * 1000,
      signal: ctx.signal,
      heapMb: limits.searchHeapMb,
    });
  } catch (error) {
    if (error instanceof OffThreadTimeout) return { timedOut: seconds };
    throw error;
  }
}

export const slowPattern = (seconds: number) =>
  `the search took longer than ${seconds} s and was stopped: a pattern with nested repetition such as (a+)+ can take exponential time on some lines; simplify it, or narrow the files searched`;

const maxMatches = 100;

type Searched = Exclude<SearchOutput, { error: string }>;

function found(output: Searched, leftOut: number, extra: Record<string, unknown>) {
  const { matches, total } = output;
  const notes = [
    ...(total > matches.length ? [`${total - matches.length} more matches not shown`] : []),
    ...(leftOut > 0
      ? [
          `${leftOut} files not searched: the search reads at most ${formatSize(limits.searchBytes)}; narrow it to the folders or files that matter`,
        ]
      : []),
  ];
  return {
    success: true,
    ...extra,
    matches,
    total_matches: total,
    ...(notes.length > 0 ? { truncated: notes.join('; ') } : {}),
  };
}

async function search(
  ctx: ToolContext,
  job: Omit<SearchJob, 'files' | 'shown' | 'lineChars'>,
  dirs?: string[],
): Promise<ToolResult> {
  const { files, leftOut } = await sourceFiles(ctx, dirs);
  const output = await offThread(ctx, searchJob, {
    ...job,
    files,
    shown: maxMatches,
    lineChars: limits.lineChars,
  });
  if ('timedOut' in output) return fail(slowPattern(output.timedOut), { query: job.query });
  if ('error' in output) return fail(output.error, { query: job.query });
  return found(output, leftOut, { query: job.query });
}

export const codebaseSearch = defineTool({
  name: 'codebase_search',
  description:
    'Lexical search: finds lines containing the query text (case-insensitive, not a regex) across the codebase, with context lines. Use grep_search for regular expressions.',
  input: z.object({
    query: z.string().min(1).describe('Text to find, as it appears in the code'),
    target_directories: z.array(z.string()).optional().describe('Directories to search (default: all)'),
    file_types: z.array(z.string()).optional().describe("Extensions to search, e.g. ['py', 'ts']"),
    context_lines: z.number().int().min(0).max(10).default(2).describe('Lines of context before and after'),
  }),
  async run(input, ctx) {
    return search(
      ctx,
      {
        mode: 'literal',
        query: input.query,
        caseSensitive: false,
        multiline: false,
        context: input.context_lines,
        ...(input.file_types
          ? { types: input.file_types.map((t) => `.${t.replace(/^\./, '').toLowerCase()}`) }
          : {}),
      },
      input.target_directories,
    );
  },
});

export const grepSearch = defineTool({
  name: 'grep_search',
  description:
    'Regular-expression search (JavaScript syntax) over the workspace files, with include/exclude globs, case sensitivity, multiline mode and context lines. Returns file, line number and text.',
  input: z.object({
    query: z.string().min(1).describe('The regular expression'),
    case_sensitive: z.boolean().default(false).describe('Match case exactly'),
    include_pattern: z.string().optional().describe("Glob of files to search, e.g. '*.ts' or 'src/**/*.py'"),
    exclude_pattern: z.string().optional().describe('Glob of files to skip'),
    multiline: z.boolean().default(false).describe('Let the pattern span lines (. matches newlines)'),
    context_lines: z.number().int().min(0).max(10).default(0).describe('Lines of context before and after'),
  }),
  async run(input, ctx) {
    let include: GlobPattern | undefined;
    let exclude: GlobPattern | undefined;
    try {
      include = globPattern(input.include_pattern);
      exclude = globPattern(input.exclude_pattern);
    } catch (error) {
      return fail(`Invalid glob: ${(error as Error).message}`, { query: input.query });
    }
    return search(ctx, {
      mode: 'regex',
      query: input.query,
      caseSensitive: input.case_sensitive,
      multiline: input.multiline,
      context: input.context_lines,
      ...(include ? { include } : {}),
      ...(exclude ? { exclude } : {}),
    });
  },
});

/** How well `query` matches `path` as an ordered subsequence; 0 when it does not. */
export function fuzzyScore(query: string, path: string): number {
  const q = query.toLowerCase();
  const p = path.toLowerCase();
  if (p.includes(q)) return 1000 - p.length + (posix.basename(p).includes(q) ? 500 : 0);
  let score = 0;
  let at = 0;
  let previous = -2;
  for (const char of q) {
    const found = p.indexOf(char, at);
    if (found < 0) return 0;
    score += found === previous + 1 ? 5 : 1;
    previous = found;
    at = found + 1;
  }
  return score;
}

export const fileSearch = defineTool({
  name: 'file_search',
  description:
    'Find files by a fuzzy part of their path (or a glob such as **/*_test.py). Returns up to 10 paths, best first.',
  input: z.object({ query: z.string().min(1).describe('Part of the file name or path, or a glob') }),
  async run(input, ctx) {
    const entries = (await ctx.sandbox.list('.', { recursive: true })).filter(
      (entry) => entry.type === 'file' && !ignoredPath(entry.path) && !ctx.policy.blocked(entry.path),
    );
    const paths = entries.map((entry) => entry.path);
    let ranked: string[];
    if (/[*?[\]{}]/.test(input.query)) {
      const matched = await offThread(ctx, globJob, { paths, glob: globPattern(input.query)! });
      if ('timedOut' in matched) return fail(slowPattern(matched.timedOut), { query: input.query });
      ranked = matched.sort((a, b) => a.localeCompare(b));
    } else {
      ranked = paths
        .map((path) => ({ path, score: fuzzyScore(input.query, path) }))
        .filter((entry) => entry.score > 0)
        .sort((a, b) => b.score - a.score || a.path.localeCompare(b.path))
        .map((entry) => entry.path);
    }
    return { success: true, query: input.query, results: ranked.slice(0, 10), total: ranked.length };
  },
});
