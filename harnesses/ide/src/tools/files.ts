import { z } from 'zod';
import { decode, defineTool, exists, fail, isBinary, readText, splitLines } from './tool.js';
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
    'Read a text file of the workspace, whole or a line range. Returns the lines prefixed with their 1-based numbers (the numbers edit_file uses) and total_lines.',
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
    const data = await ctx.sandbox.readFile(rel).catch(() => undefined);
    if (!data) return fail(`File not found: ${rel}`, { target_file: rel });
    if (isBinary(data)) return fail(`${rel} is a binary file (${data.length} bytes)`, { target_file: rel });
    const lines = splitLines(decode(data));
    const whole = input.should_read_entire_file ?? false;
    const start = whole ? 1 : (input.start_line_one_indexed ?? 1);
    const end = whole
      ? lines.length
      : Math.min(input.end_line_one_indexed_inclusive ?? lines.length, lines.length);
    if (start > Math.max(lines.length, 1))
      return fail(`start line ${start} is past the end of ${rel} (${lines.length} lines)`, {
        target_file: rel,
        total_lines: lines.length,
      });
    const width = String(end).length;
    const content = lines
      .slice(start - 1, end)
      .map((line, i) => `${String(start + i).padStart(width)}|${line}`)
      .join('\n');
    return {
      success: true,
      target_file: rel,
      content,
      start_line: start,
      end_line: end,
      total_lines: lines.length,
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
    return writeChecked(ctx, rel, await readText(ctx, rel), input.content);
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
