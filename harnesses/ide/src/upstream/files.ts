import { formatSize } from '@longhaul/core';
import { z } from 'zod';
import { limits } from '../tools/limits.js';
import { readBounded } from '../tools/read.js';
import { decode, defineTool, fail, isBinary, type ToolContext } from '../tools/tool.js';
import { blocked, pathRefusal, readRefusal } from './guard.js';
import { explains, explanation, schema } from './schema.js';

/** Python's `lines[start:end]` for the indices read_file computes (end may be negative). */
function slice(lines: string[], start: number, end: number): string[] {
  return lines.slice(start, end < 0 ? Math.max(0, lines.length + end) : end);
}

/**
 * The longest start of `lines` whose text, JSON-escaped, stays within `budget` characters: the
 * released harness returns a file whole, whatever its size; here the result keeps the output
 * limit and says where to read on.
 */
function fitting(lines: string[], budget: number): number {
  let used = 0;
  for (let i = 0; i < lines.length; i++) {
    used += JSON.stringify(lines[i]).length;
    if (used > budget) return i;
  }
  return lines.length;
}

export const upstreamReadFile = defineTool({
  name: 'read_file',
  description:
    'Read a file, whole or a range of its lines; the text comes back as it is, without line numbers. Files under /tasks and ./run_tests.sh cannot be read.',
  input: z.object({
    target_file: z.string(),
    should_read_entire_file: z.boolean().default(true),
    start_line_one_indexed: z.number().int().default(1),
    end_line_one_indexed_inclusive: z.number().int().default(-1),
    explanation,
  }),
  advertised: schema(
    {
      target_file: {
        type: 'string',
        description: 'The file to read: a workspace-relative or an absolute path.',
      },
      ...explains(),
      should_read_entire_file: { type: 'boolean', description: 'Read the whole file (false by default).' },
      start_line_one_indexed: {
        type: 'integer',
        description: 'First line to read, counting from 1 (inclusive).',
      },
      end_line_one_indexed_inclusive: {
        type: 'integer',
        description: 'Last line to read, counting from 1 (inclusive).',
      },
    },
    ['target_file', 'should_read_entire_file', 'start_line_one_indexed', 'end_line_one_indexed_inclusive'],
  ),
  async run(input, ctx) {
    const refusal = pathRefusal(input.target_file);
    if (refusal) return blocked('read_file', refusal);
    const denied = readRefusal(input.target_file);
    if (denied) return fail(denied, { target_file: input.target_file });
    const rel = ctx.policy.resolve(input.target_file);
    const read = await readBounded(ctx, rel, limits.readBytes).catch(() => ({ missing: true }) as const);
    if ('missing' in read) return fail(`Failed to read file: ${input.target_file} does not exist`);
    if ('size' in read)
      return fail(
        `Failed to read file: it is ${formatSize(read.size)}, more than the ${formatSize(limits.readBytes)} read_file reads; use run_terminal_cmd (head, sed -n, grep -n)`,
      );
    if (isBinary(read.data) || !isUtf8(read.data)) return fail('Failed to read file: it is not UTF-8 text');
    const lines = decode(read.data).split('\n');
    const total = lines.length;
    const whole = input.should_read_entire_file;
    const startIndex = whole ? 0 : Math.max(0, input.start_line_one_indexed - 1);
    const endIndex = whole
      ? total
      : input.end_line_one_indexed_inclusive === -1
        ? total
        : Math.min(total, input.end_line_one_indexed_inclusive);
    const wanted = slice(lines, startIndex, endIndex);
    const shown = fitting(wanted, Math.max(1000, ctx.options.outputLimit - 1000));
    const cut: Record<string, string> =
      shown < wanted.length
        ? {
            truncated: `only ${shown} of the ${wanted.length} lines fit the output limit; read on with should_read_entire_file=false and start_line_one_indexed=${startIndex + shown + 1}`,
          }
        : {};
    const content = wanted.slice(0, shown).join('\n');
    if (whole)
      return {
        success: true,
        content,
        target_file: input.target_file,
        total_lines: total,
        explanation: input.explanation ?? '',
        ...cut,
      };
    return {
      success: true,
      content,
      target_file: input.target_file,
      start_line: input.start_line_one_indexed,
      end_line: endIndex,
      total_lines: total,
      lines_before: startIndex,
      lines_after: total - endIndex,
      explanation: input.explanation ?? '',
      ...cut,
    };
  },
});

function isUtf8(data: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(data);
    return true;
  } catch {
    return false;
  }
}

/** A command's standard output and error together, in the order it wrote them (as `docker exec`). */
export async function combined(
  ctx: ToolContext,
  argv: string[],
  timeoutMs: number,
): Promise<{ exitCode: number | null; output: string; timedOut: boolean }> {
  const result = await ctx.sandbox.exec(['sh', '-c', '"$@" 2>&1', 'sh', ...argv], {
    timeoutMs,
    signal: ctx.signal,
    maxOutputBytes: 1024 * 1024,
  });
  return { exitCode: result.exitCode, output: result.stdout + result.stderr, timedOut: result.timedOut };
}

export const upstreamListDir = defineTool({
  name: 'list_dir',
  description:
    'List what a directory holds (ls -la). The quick way to look around before searching or reading files.',
  input: z.object({ relative_workspace_path: z.string(), explanation }),
  advertised: schema(
    {
      relative_workspace_path: {
        type: 'string',
        description: 'The directory to list, relative to the workspace root.',
      },
      ...explains(),
    },
    ['relative_workspace_path'],
  ),
  async run(input, ctx) {
    const refusal = pathRefusal(input.relative_workspace_path);
    if (refusal) return blocked('list_dir', refusal);
    const given = input.relative_workspace_path.replace(/^\/+/, '') || '.';
    const rel = ctx.policy.resolve(input.relative_workspace_path || '.');
    const listed = await combined(ctx, ['ls', '-la', '--', rel], 30_000);
    if (listed.exitCode !== 0)
      return fail(`Failed to list directory: ${listed.output || 'ls failed'}`, {
        path: given,
        command: `ls -la ${rel}`,
      });
    return { success: true, contents: listed.output, path: given, explanation: input.explanation ?? '' };
  },
});

export const upstreamDeleteFile = defineTool({
  name: 'delete_file',
  description: 'Delete the file at the given path.',
  input: z.object({ target_file: z.string(), explanation }),
  advertised: schema(
    {
      target_file: { type: 'string', description: 'The file to delete, relative to the workspace root.' },
      ...explains(),
    },
    ['target_file'],
  ),
  async run(input, ctx) {
    const refusal = pathRefusal(input.target_file);
    if (refusal) return blocked('delete_file', refusal);
    const rel = ctx.policy.resolve(input.target_file);
    const removed = await combined(ctx, ['rm', '--', rel], 30_000);
    const success = removed.exitCode === 0;
    return {
      success,
      message: success ? `File ${input.target_file} deleted` : 'The file could not be deleted',
      target_file: input.target_file,
      explanation: input.explanation ?? '',
      error: null,
    };
  },
});

export const upstreamCreateDirectory = defineTool({
  name: 'create_directory',
  description: 'Create a directory and its parents.',
  unlisted: true,
  input: z.object({
    directory_path: z.string().describe('The directory to make, relative to the workspace'),
    explanation,
  }),
  async run(input, ctx) {
    const rel = ctx.policy.resolve(input.directory_path);
    const made = await combined(ctx, ['mkdir', '-p', '--', rel], 30_000);
    const success = made.exitCode === 0;
    return {
      success,
      message: success ? `Created directory ${input.directory_path}` : 'The directory could not be created',
      directory_path: input.directory_path,
      error: success ? null : made.output,
    };
  },
});

/** Folders list_files leaves out (its find command's exclusions, as folder names). */
const unlistedDirs = new Set(
  '.next .nuxt dist build __pycache__ .venv venv .env site-packages .tox .pytest_cache .mypy_cache .bundle target .gradle .m2 bin obj packages vendor .git .svn .hg .vscode .idea .vs .cache tmp temp .tmp .terraform .docker node_modules'.split(
    ' ',
  ),
);

export const upstreamListFiles = defineTool({
  name: 'list_files',
  description: 'Every file under a directory, without dependency, build and cache folders.',
  unlisted: true,
  input: z.object({
    directory: z.string().default('.').describe('The directory to list, relative to the workspace'),
    explanation,
  }),
  async run(input, ctx) {
    const rel = ctx.policy.resolve(input.directory);
    const entries = await ctx.sandbox.list(rel, { recursive: true }).catch(() => undefined);
    if (!entries) return fail(`Failed to list files: ${input.directory} is not a directory`);
    const files = entries
      .filter(
        (entry) =>
          entry.type === 'file' &&
          !entry.path.split('/').some((part) => unlistedDirs.has(part) || part.endsWith('.egg-info')) &&
          !ctx.policy.blocked(entry.path),
      )
      .map((entry) => entry.path)
      .sort();
    return { success: true, files, directory: input.directory };
  },
});
