import { z } from 'zod';
import { defineTool, fail, readText, splitLines } from './tool.js';
import { writeChecked } from './write.js';

const lineEdit = z.object({
  type: z
    .enum(['replace', 'insert', 'delete'])
    .describe('replace or delete lines start..end; insert before start'),
  start_line: z.number().int().positive().optional().describe('First line (1-based) the edit applies to'),
  end_line: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Last line (inclusive) for replace/delete; default start_line'),
  line_number: z.number().int().positive().optional().describe('Same as start_line (single-line form)'),
  content: z.string().optional().describe('New lines for replace/insert (may hold several lines)'),
});

type LineEdit = z.output<typeof lineEdit>;

interface Range {
  type: LineEdit['type'];
  start: number;
  end: number;
  lines: string[];
}

/**
 * Applies line edits against the file's original numbering, last range first, so each edit
 * means what the numbered read showed. Overlapping ranges are an error.
 */
export function applyLineEdits(text: string, edits: LineEdit[]): { text: string } | { error: string } {
  const lines = splitLines(text);
  const ranges: Range[] = [];
  for (const [i, edit] of edits.entries()) {
    const start = edit.start_line ?? edit.line_number;
    if (start === undefined) return { error: `line_edits[${i}] needs start_line (or line_number)` };
    const end = edit.type === 'insert' ? start - 1 : (edit.end_line ?? start);
    if (end < start - (edit.type === 'insert' ? 1 : 0))
      return { error: `line_edits[${i}]: end_line ${end} is before start_line ${start}` };
    if (edit.type !== 'delete' && edit.content === undefined)
      return { error: `line_edits[${i}]: ${edit.type} needs content` };
    if (edit.type === 'delete' && start > lines.length)
      return { error: `line_edits[${i}]: line ${start} does not exist (${lines.length} lines)` };
    const content = edit.content?.replace(/\n$/, '') ?? '';
    ranges.push({ type: edit.type, start, end, lines: edit.type === 'delete' ? [] : content.split('\n') });
  }
  ranges.sort((a, b) => b.start - a.start || b.end - a.end);
  for (let i = 1; i < ranges.length; i++) {
    const later = ranges[i - 1]!;
    const earlier = ranges[i]!;
    if (earlier.end >= later.start)
      return { error: `line edits overlap at lines ${later.start}-${Math.max(later.end, later.start)}` };
  }
  for (const range of ranges) {
    const at = Math.min(range.start - 1, lines.length);
    const count = range.type === 'insert' ? 0 : Math.max(0, Math.min(range.end, lines.length) - at);
    while (lines.length < at) lines.push('');
    lines.splice(at, count, ...range.lines);
  }
  return { text: lines.length > 0 ? `${lines.join('\n')}\n` : '' };
}

export const editFile = defineTool({
  name: 'edit_file',
  description:
    'Edit a file with structured line edits (replace, insert, delete) using the line numbers read_file shows; all numbers refer to the file before the edit. A missing file is created. An edit that breaks Python / TypeScript / JavaScript syntax is refused and nothing is written.',
  input: z.object({
    target_file: z.string().describe('Path relative to the workspace'),
    instructions: z.string().optional().describe('What the edit changes, in one sentence'),
    line_edits: z.array(lineEdit).min(1).describe('Edits to apply, in any order'),
  }),
  async run(input, ctx) {
    const rel = ctx.policy.resolve(input.target_file);
    const before = await readText(ctx, rel, 'edit_file');
    const applied = applyLineEdits(before ?? '', input.line_edits);
    if ('error' in applied) return fail(applied.error, { target_file: rel });
    const result = await writeChecked(ctx, rel, before, applied.text);
    return { ...result, target_file: rel, total_edits: input.line_edits.length };
  },
});

export const searchReplace = defineTool({
  name: 'search_replace',
  description:
    'Replace exact text in a file. old_string must occur exactly once unless replace_all is true. Refused (nothing written) if it breaks Python / TS / JS syntax.',
  input: z.object({
    file_path: z.string().describe('Path relative to the workspace'),
    old_string: z.string().min(1).describe('Exact text to find, whitespace included'),
    new_string: z.string().describe('Replacement text'),
    replace_all: z.boolean().default(false).describe('Replace every occurrence'),
  }),
  async run(input, ctx) {
    const rel = ctx.policy.resolve(input.file_path);
    const before = await readText(ctx, rel, 'search_replace');
    if (before === undefined) return fail(`File not found: ${rel}`, { file_path: rel });
    const count = before.split(input.old_string).length - 1;
    if (count === 0) return fail(`Old string not found in file ${rel}`, { file_path: rel });
    if (count > 1 && !input.replace_all)
      return fail(
        `Old string occurs ${count} times in ${rel}; add context to make it unique or set replace_all`,
        {
          file_path: rel,
        },
      );
    const after = input.replace_all
      ? before.split(input.old_string).join(input.new_string)
      : before.replace(input.old_string, () => input.new_string);
    const result = await writeChecked(ctx, rel, before, after);
    return { ...result, file_path: rel, replacements: input.replace_all ? count : 1 };
  },
});
