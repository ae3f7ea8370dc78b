import { formatSize } from '@longhaul/core';
import { z } from 'zod';
import { limits } from './limits.js';
import { exists, lineWindow, readBounded } from './read.js';
import { decode, defineTool, fail, isBinary } from './tool.js';
import { writeChecked } from './write.js';

/** Directories list_dir and the searches leave out (IDE-Bench's ignore list). */
export const ignoredDirs = new Set([
  'node_modules',
  '.git',
  '__pycache__',
  '.venv',
  'venv',
  'dist',
  'build',
  'target',
  'vendor',
  '.next',
  '.nuxt',
  '.cache',
  '.pytest_cache',
  '.mypy_cache',
  '.gradle',
  '.tox',
  'coverage',
]);

export function ignoredPath(rel: string): boolean {
  return rel.split('/').some((part) => ignoredDirs.has(part));
}

export const readFile = defineTool({
  name: 'read_file',
  description:
    'Read a text file of the workspace, whole or a line range. Returns the lines prefixed with their 1-based numbers (the numbers edit_file uses) and total_lines. A long file is shown up to the output limit; the result then says where to read on.',
  input: z.object({
    target_file: z.string().describe('Path relative to the workspace (or absolute inside it)'),
    start_line_one_indexed: z.number().int().positive().optional().describe('First line to read (default 1)'),
    end_line_one_indexed_inclusive: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Last line to read (default: the end of the file)'),
    should_read_entire_file: z.boolean().optional().describe('Read the whole file, ignoring the range'),
  }),
  async run(input, ctx) {
    const rel = ctx.policy.resolve(input.target_file);
    const read = await readBounded(ctx, rel, limits.readBytes).catch(() => ({ missing: true }) as const);
    if ('missing' in read) return fail(`File not found: ${rel}`, { target_file: rel });
    if ('size' in read)
      return fail(
        `${rel} is ${formatSize(read.size)}, larger than the ${formatSize(limits.readBytes)} read_file reads; look into it with run_terminal_cmd instead (wc -l ${rel}; head -n 100 ${rel}; sed -n '1000,1100p' ${rel}; grep -n PATTERN ${rel})`,
        { target_file: rel, size: read.size },
      );
    const { data } = read;
    if (isBinary(data)) return fail(`${rel} is a binary file (${data.length} bytes)`, { target_file: rel });
    const whole = input.should_read_entire_file ?? false;
    const start = whole ? 1 : (input.start_line_one_indexed ?? 1);
    const end = whole
      ? Number.POSITIVE_INFINITY
      : (input.end_line_one_indexed_inclusive ?? Number.POSITIVE_INFINITY);
    const window = lineWindow(data, start, end, Math.max(1000, ctx.options.outputLimit - 1000));
    const total = window.totalLines;
    if (start > Math.max(total, 1))
      return fail(`start line ${start} is past the end of ${rel} (${total} lines)`, {
        target_file: rel,
        total_lines: total,
      });
    const wanted = Math.min(end, total);
    const next = window.end + 1;
    const notShown = [
      ...(window.cutLine
        ? [
            `line ${window.end} is cut: see all of it with run_terminal_cmd (e.g. sed -n '${window.end}p' ${rel} | cut -c 1-5000)`,
          ]
        : []),
      ...(next <= wanted
        ? [`lines ${next}-${wanted} not shown (output limit); read on with start_line_one_indexed=${next}`]
        : []),
    ];
    return {
      success: true,
      target_file: rel,
      content: window.content,
      start_line: start,
      end_line: window.end,
      total_lines: total,
      ...(notShown.length > 0 ? { truncated: notShown.join('; ') } : {}),
    };
  },
});

export const listDir = defineTool({
  name: 'list_dir',
  description:
    'List a directory of the workspace (recursively if asked), leaving out node_modules, .git, virtualenvs, caches and build output. Returns entries with their type and size.',
  input: z.object({
    relative_workspace_path: z.string().default('.').describe('Directory relative to the workspace root'),
    recursive: z.boolean().default(false).describe('Descend into subdirectories'),
  }),
  async run(input, ctx) {
    const rel = ctx.policy.resolve(input.relative_workspace_path);
    const entries = await ctx.sandbox.list(rel, { recursive: input.recursive }).catch(() => undefined);
    if (!entries) return fail(`Directory not found: ${rel}`, { path: rel });
    const shown = entries
      .filter((entry) => !ignoredPath(entry.path) && !ctx.policy.blocked(entry.path))
      .sort((a, b) => (a.path < b.path ? -1 : 1));
    const limit = 1000;
    return {
      success: true,
      path: rel,
      entries: shown.slice(0, limit).map((e) => ({ path: e.path, type: e.type, size: e.size })),
      ...(shown.length > limit ? { truncated: `${shown.length - limit} more entries not shown` } : {}),
    };
  },
});

export const writeFile = defineTool({
  name: 'write_file',
  description: 'Create a file or overwrite it completely (parent directories are created).',
  input: z.object({
    file_path: z.string().describe('Path relative to the workspace'),
    content: z.string().describe('The complete content of the file'),
  }),
  async run(input, ctx) {
    const rel = ctx.policy.resolve(input.file_path);
    const before = await readBounded(ctx, rel, limits.editBytes);
    return writeChecked(
      ctx,
      rel,
      'data' in before ? decode(before.data) : 'size' in before ? { unread: before.size } : undefined,
      input.content,
    );
  },
});

export const deleteFile = defineTool({
  name: 'delete_file',
  description: 'Delete a file of the workspace.',
  input: z.object({ target_file: z.string().describe('Path relative to the workspace') }),
  async run(input, ctx) {
    const rel = ctx.policy.resolve(input.target_file);
    if (rel === '.') return fail('delete_file deletes files, not the workspace');
    if (!(await exists(ctx, rel))) return fail(`File not found: ${rel}`, { target_file: rel });
    await ctx.sandbox.remove(rel);
    return { success: true, target_file: rel, message: `File ${rel} deleted` };
  },
});

export const createDirectory = defineTool({
  name: 'create_directory',
  description: 'Create a directory (and its parents) in the workspace.',
  input: z.object({ directory_path: z.string().describe('Path relative to the workspace') }),
  async run(input, ctx) {
    const rel = ctx.policy.resolve(input.directory_path);
    const result = await ctx.sandbox.exec(['mkdir', '-p', '--', rel], {
      signal: ctx.signal,
      timeoutMs: 30_000,
    });
    if (result.exitCode !== 0) return fail(result.stderr.trim() || `mkdir exited ${result.exitCode}`);
    return { success: true, directory_path: rel };
  },
});
