import { z } from 'zod';
import { limits } from '../tools/limits.js';
import { globPattern, offThread, slowPattern, sourceFiles } from '../tools/search.js';
import { globJob } from '../tools/search-job.js';
import { defineTool, fail, type ToolContext } from '../tools/tool.js';
import { explains, explanation, schema } from './schema.js';
import { type RipgrepJob, ripgrepJob } from './search-job.js';

/**
 * The folders upstream's ripgrep calls leave out (`-g '!name/'`, any depth): codebase_search's
 * short list, grep_search's long one. Like ripgrep, both skip hidden files and folders too.
 */
const codebaseExcluded = new Set([
  'node_modules',
  '.venv',
  'venv',
  '__pycache__',
  '.git',
  'dist',
  'build',
  'target',
  'vendor',
]);
const grepExcluded = new Set([
  ...codebaseExcluded,
  ...['.next', '.nuxt', '.cache', 'tmp', 'temp', '.gradle', '.m2', 'obj', 'bin'],
]);

/** Ripgrep's `py`, `js` and `ts` file types, the only ones codebase_search searches. */
const searchedTypes = ['py', 'pyi', 'cjs', 'js', 'jsx', 'mjs', 'vue', 'cts', 'mts', 'ts', 'tsx'];

const hidden = (name: string) => name.startsWith('.') && name !== '.' && name !== '..';

const maxLines = 100;

/**
 * A `find -name` pattern (fnmatch) as a regular expression over a file name: `*` any run of
 * characters, `?` one, `[...]` a class (`[!...]` negated), everything else itself.
 */
export function fnmatchRegex(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '*') out += '.*';
    else if (char === '?') out += '.';
    else if (char === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close < 0) out += '\\[';
      else {
        let body = pattern.slice(i + 1, close);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        out += `[${body.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else if (char === '\\' && i + 1 < pattern.length) out += `\\${pattern[++i]}`;
    else out += char.replace(/[.+^${}()|\]\\/]/g, '\\$&');
  }
  return `^${out}$`;
}

async function ripgrep(
  ctx: ToolContext,
  dirs: string[],
  excluded: Set<string>,
  skipped: (name: string) => boolean,
  job: Omit<RipgrepJob, 'files' | 'root' | 'shown' | 'lineChars'>,
) {
  const { files, leftOut } = await sourceFiles(ctx, dirs, (name) => excluded.has(name) || skipped(name));
  const output = await offThread(ctx, ripgrepJob, {
    ...job,
    files,
    root: ctx.sandbox.workspace.replace(/\/+$/, ''),
    shown: maxLines,
    lineChars: limits.lineChars,
  });
  return { output, leftOut };
}

/** A POSIX basic regular expression (grep's default) as a JavaScript one: `(`, `+`, `{` are text there. */
export function basicRegex(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '\\' && i + 1 < pattern.length) {
      const next = pattern[++i]!;
      out += '(){}|+?'.includes(next) ? next : `\\${next}`;
    } else out += '(){}|+?/'.includes(char) ? `\\${char}` : char;
  }
  return out;
}

export const upstreamCodebaseSearch = defineTool({
  name: 'codebase_search',
  description:
    'Find code by keywords: a lexical search (exact text, ripgrep), not a semantic one. Best for function names, variable names and other text that appears as it is in the code.',
  input: z.object({
    query: z.string(),
    target_directories: z.array(z.string()).optional(),
    explanation,
  }),
  advertised: schema(
    {
      ...explains(),
      query: {
        type: 'string',
        description: 'The keywords to look for: words that appear literally in the code, matched as text.',
      },
      target_directories: {
        type: 'array',
        items: { type: 'string' },
        description: 'Directories (glob patterns) to search in',
      },
    },
    ['query'],
  ),
  async run(input, ctx) {
    const dirs = input.target_directories?.length ? input.target_directories : ['.'];
    const results: Record<string, unknown>[] = [];
    for (const dir of dirs) {
      // Ripgrep over its py, js and ts types: the first matching line of each file.
      const searched = await ripgrep(ctx, [dir], codebaseExcluded, hidden, {
        query: input.query,
        caseSensitive: false,
        mode: 'first',
        include: globPattern(`*.{${searchedTypes.join(',')}}`)!,
      });
      if ('timedOut' in searched.output)
        return fail(slowPattern(searched.output.timedOut), { query: input.query });
      if ('hits' in searched.output)
        for (const hit of searched.output.hits)
          results.push({
            file: hit.file,
            relevance: 0.9,
            snippet: hit.text.trim(),
            line_number: String(hit.line),
          });
      if (results.length > 0) continue;
      // Nothing yet (or a pattern ripgrep rejects): upstream's fallback, find with grep -l -i,
      // hidden files included, the query as a basic regular expression; ten files at most.
      const fallback = await ripgrep(ctx, [dir], codebaseExcluded, () => false, {
        query: basicRegex(input.query),
        caseSensitive: false,
        mode: 'first',
        include: globPattern('*.{py,js,ts,jsx,tsx}')!,
      });
      if ('timedOut' in fallback.output)
        return fail(slowPattern(fallback.output.timedOut), { query: input.query });
      if ('hits' in fallback.output)
        for (const hit of fallback.output.hits.slice(0, 10))
          results.push({ file: hit.file, relevance: 0.7, snippet: `Contains '${input.query}'` });
    }
    // Sorted by relevance (a stable sort), ten at most.
    const ranked = results.sort((a, b) => (b.relevance as number) - (a.relevance as number));
    return { success: true, results: ranked.slice(0, 10), explanation: input.explanation ?? '' };
  },
});

export const upstreamGrepSearch = defineTool({
  name: 'grep_search',
  description:
    'Exact text or regular-expression search over the text files (ripgrep), the fastest way to find where something is written.',
  input: z.object({
    query: z.string(),
    case_sensitive: z.boolean().default(false),
    include_pattern: z.string().optional(),
    exclude_pattern: z.string().optional(),
    explanation,
  }),
  advertised: schema(
    {
      query: { type: 'string', description: 'The regular expression to look for' },
      ...explains(),
      case_sensitive: { type: 'boolean', description: 'Match upper and lower case exactly' },
      include_pattern: {
        type: 'string',
        description: "Glob of the files to search (e.g. '*.ts' for TypeScript)",
      },
      exclude_pattern: { type: 'string', description: 'Glob of the files to leave out' },
    },
    ['query'],
  ),
  async run(input, ctx) {
    const echo = { query: input.query, explanation: input.explanation ?? '' };
    let include: ReturnType<typeof globPattern>;
    let exclude: ReturnType<typeof globPattern>;
    try {
      include = globPattern(input.include_pattern);
      exclude = globPattern(input.exclude_pattern);
    } catch {
      return { success: false, matches: [], ...echo };
    }
    const { output, leftOut } = await ripgrep(ctx, ['.'], grepExcluded, hidden, {
      query: input.query,
      caseSensitive: input.case_sensitive,
      mode: 'lines',
      ...(include ? { include } : {}),
      ...(exclude ? { exclude } : {}),
    });
    if ('timedOut' in output) return fail(slowPattern(output.timedOut), { query: input.query });
    // Ripgrep exits 1 when nothing matches and 2 on a bad pattern: upstream reports both as failure.
    if ('error' in output || output.total === 0) return { success: false, matches: [], ...echo };
    const notes = [
      ...(output.total > output.hits.length
        ? [`${output.total - output.hits.length} more matching lines not shown`]
        : []),
      ...(leftOut > 0
        ? [`${leftOut} files not searched (the search reads at most ${limits.searchBytes} bytes)`]
        : []),
    ];
    return {
      success: true,
      // Ripgrep's lines as it prints them to a pipe (path:text), and the empty string after the last newline.
      matches: [...output.hits.map((hit) => `${hit.file}:${hit.text}`), ''],
      ...echo,
      ...(notes.length > 0 ? { truncated: notes.join('; ') } : {}),
    };
  },
});

export const upstreamFileSearch = defineTool({
  name: 'file_search',
  description:
    'Find files whose name contains a part you know (find -name "*part*"), when you do not know where they are. Up to 10 paths.',
  input: z.object({ query: z.string(), explanation }),
  advertised: schema(
    {
      query: { type: 'string', description: 'Part of the file name to look for' },
      ...explains(),
    },
    ['query', 'explanation'],
  ),
  async run(input, ctx) {
    const paths = (await ctx.sandbox.list('.', { recursive: true }))
      .filter((entry) => entry.type === 'file' && !ctx.policy.blocked(entry.path))
      .map((entry) => entry.path)
      .sort();
    const glob = { source: fnmatchRegex(`*${input.query}*`), flags: '', basename: true };
    const matched = await offThread(ctx, globJob, { paths, glob });
    if ('timedOut' in matched) return fail(slowPattern(matched.timedOut), { query: input.query });
    return {
      success: true,
      results: matched.slice(0, 10),
      query: input.query,
      explanation: input.explanation ?? '',
    };
  },
});
