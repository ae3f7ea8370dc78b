import { posix } from 'node:path';
import picomatch from 'picomatch';
import { z } from 'zod';
import { ignoredPath } from './files.js';
import { decode, defineTool, fail, isBinary, splitLines, type ToolContext } from './tool.js';

interface TextFile {
  path: string;
  lines: string[];
}

const maxSearchedBytes = 1024 * 1024;

/** Text files of the workspace the agent may see, under `dirs` (workspace-relative) when given. */
async function visibleFiles(ctx: ToolContext, dirs: string[] = ['.']): Promise<TextFile[]> {
  const roots = dirs.map((dir) => ctx.policy.resolve(dir));
  const files = await ctx.sandbox.pull();
  return files
    .filter(
      (file) =>
        roots.some((root) => root === '.' || file.path === root || file.path.startsWith(`${root}/`)) &&
        !ignoredPath(file.path) &&
        !ctx.policy.blocked(file.path) &&
        file.data.length <= maxSearchedBytes &&
        !isBinary(file.data),
    )
    .map((file) => ({ path: file.path, lines: splitLines(decode(file.data)) }));
}

interface Match {
  file: string;
  line: number;
  text: string;
  context?: string[];
}

function withContext(file: TextFile, index: number, context: number): Match {
  const match: Match = { file: file.path, line: index + 1, text: file.lines[index]! };
  if (context > 0) {
    const from = Math.max(0, index - context);
    match.context = file.lines
      .slice(from, index + context + 1)
      .map((line, i) => `${from + i + 1}${from + i === index ? ':' : '-'}${line}`);
  }
  return match;
}

function globMatcher(pattern: string | undefined): ((path: string) => boolean) | undefined {
  if (!pattern) return undefined;
  const match = picomatch(pattern, { dot: true, basename: !pattern.includes('/') });
  return (path) => match(path);
}

const maxMatches = 100;

function found(matches: Match[], extra: Record<string, unknown>) {
  return {
    success: true,
    ...extra,
    matches: matches.slice(0, maxMatches),
    total_matches: matches.length,
    ...(matches.length > maxMatches
      ? { truncated: `${matches.length - maxMatches} more matches not shown` }
      : {}),
  };
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
    const query = input.query.toLowerCase();
    const types = input.file_types?.map((t) => `.${t.replace(/^\./, '').toLowerCase()}`);
    const matches: Match[] = [];
    for (const file of await visibleFiles(ctx, input.target_directories)) {
      if (types && !types.includes(posix.extname(file.path).toLowerCase())) continue;
      file.lines.forEach((line, i) => {
        if (line.toLowerCase().includes(query)) matches.push(withContext(file, i, input.context_lines));
      });
    }
    return found(matches, { query: input.query });
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
    let regex: RegExp;
    try {
      const flags = `g${input.case_sensitive ? '' : 'i'}${input.multiline ? 'ms' : ''}`;
      regex = new RegExp(input.query, flags);
    } catch (error) {
      return fail(`Invalid regular expression: ${(error as Error).message}`, { query: input.query });
    }
    const include = globMatcher(input.include_pattern);
    const exclude = globMatcher(input.exclude_pattern);
    const matches: Match[] = [];
    for (const file of await visibleFiles(ctx)) {
      if ((include && !include(file.path)) || exclude?.(file.path)) continue;
      if (input.multiline) {
        const text = file.lines.join('\n');
        for (const m of text.matchAll(regex)) {
          const index = text.slice(0, m.index).split('\n').length - 1;
          matches.push({ ...withContext(file, index, input.context_lines), text: m[0].slice(0, 500) });
          if (m[0] === '') break;
        }
      } else {
        file.lines.forEach((line, i) => {
          regex.lastIndex = 0;
          if (regex.test(line)) matches.push(withContext(file, i, input.context_lines));
        });
      }
    }
    return found(matches, { query: input.query });
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
    const glob = /[*?[\]{}]/.test(input.query) ? globMatcher(input.query) : undefined;
    const ranked = entries
      .map((entry) => ({
        path: entry.path,
        score: glob ? (glob(entry.path) ? 1 : 0) : fuzzyScore(input.query, entry.path),
      }))
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
    return {
      success: true,
      query: input.query,
      results: ranked.slice(0, 10).map((entry) => entry.path),
      total: ranked.length,
    };
  },
});
