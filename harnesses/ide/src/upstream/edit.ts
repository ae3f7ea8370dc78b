import { posix } from 'node:path';
import { z } from 'zod';
import { exists } from '../tools/read.js';
import { SyntaxChecker } from '../tools/syntax.js';
import { defineTool, fail, readText, type ToolContext, type ToolResult } from '../tools/tool.js';
import { blocked, pathRefusal } from './guard.js';
import { applyUpstreamLineEdits, splitLinesKeepEnds, type UpstreamLineEdit } from './line-edits.js';
import { explanation, schema } from './schema.js';

/** The checks every editing tool makes first: the guard, then the path inside the workspace. */
function guarded(ctx: ToolContext, operation: string, path: string): string | ToolResult {
  const refusal = pathRefusal(path);
  if (refusal) return blocked(operation, refusal);
  return ctx.policy.resolve(path);
}

/** What is wrong with `line_edits` before any is applied, as upstream checks it; undefined when fine. */
function badEdits(value: unknown): ToolResult | undefined {
  if (!value || (Array.isArray(value) && value.length === 0))
    return fail('line_edits is required when edit_type is line_edits');
  if (typeof value === 'string')
    return fail('line_edits must be a list of edit objects, not a string: send it as JSON, not as text', {
      hint: 'line_edits: [{"type": "replace", "line_number": 1, "content": "..."}, ...]',
    });
  if (!Array.isArray(value)) return fail(`line_edits must be a list, not ${typeof value}`);
  for (const [i, edit] of value.entries()) {
    if (edit === null || typeof edit !== 'object' || Array.isArray(edit))
      return fail(`line_edits[${i}] must be an object`);
    const { line_number, content } = edit as Record<string, unknown>;
    if (line_number !== undefined && !Number.isInteger(line_number))
      return fail(`line_edits[${i}].line_number must be a whole number`);
    if (content !== undefined && typeof content !== 'string')
      return fail(`line_edits[${i}].content must be text`);
  }
  return undefined;
}

export const upstreamEditFile = defineTool({
  name: 'edit_file',
  description:
    'Change a file with line-based edits (each a replace, insert or delete at one 1-based line number). A file that does not exist is created. Edits run from the bottom of the file up, so earlier line numbers stay valid.',
  input: z.object({
    target_file: z.string(),
    instructions: z.string(),
    edit_type: z.string().default('line_edits'),
    line_edits: z.unknown().optional(),
    explanation,
  }),
  advertised: schema(
    {
      target_file: {
        type: 'string',
        description: 'The file to change: a workspace-relative or an absolute path.',
      },
      instructions: { type: 'string', description: 'What the change does, in plain words.' },
      edit_type: {
        type: 'string',
        enum: ['line_edits'],
        description: "Kind of edit; 'line_edits' (structured line edits) is the only kind.",
      },
      line_edits: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            type: {
              type: 'string',
              enum: ['replace', 'insert', 'delete'],
              description: 'What to do at the line',
            },
            line_number: { type: 'integer', description: 'The 1-based line the edit applies to' },
            content: {
              type: 'string',
              description: 'The new text for replace and insert (not used by delete)',
            },
          },
          required: ['type', 'line_number'],
        },
        description:
          "The line edits (needed with edit_type 'line_edits'); they are applied from the highest line number down so that numbers do not shift.",
      },
    },
    ['target_file', 'instructions', 'edit_type'],
  ),
  async run(input, ctx) {
    const rel = guarded(ctx, 'edit_file', input.target_file);
    if (typeof rel !== 'string') return rel;
    if (input.edit_type !== 'line_edits')
      return fail(`edit_type must be 'line_edits', not '${input.edit_type}'`);
    if (!(await exists(ctx, rel))) await ctx.sandbox.writeFile(rel, '');
    const problem = badEdits(input.line_edits);
    if (problem) return problem;
    const edits = input.line_edits as UpstreamLineEdit[];
    const before = (await readText(ctx, rel, 'edit_file')) ?? '';
    let applied: ReturnType<typeof applyUpstreamLineEdits>;
    try {
      applied = applyUpstreamLineEdits(splitLinesKeepEnds(before), edits);
    } catch (error) {
      return fail(`The line edits could not be applied: ${(error as Error).message}`, { target_file: rel });
    }
    const after = applied.lines.join('');
    if (after === before)
      return fail('No effective change: the file would stay as it is', {
        target_file: rel,
        instructions: input.instructions,
        total_edits: edits.length,
      });
    if (ctx.options.syntaxCheck && rel.toLowerCase().endsWith('.py') && SyntaxChecker.checks(rel)) {
      const syntax = await ctx.syntax.problem(rel, after, ctx.signal);
      if (syntax)
        return fail(
          `Python syntax error in ${posix.join(ctx.sandbox.workspace, rel)}: ${syntax.message} at line ${syntax.line}`,
          {
            target_file: rel,
            syntax_error: true,
            syntax_line: syntax.line,
            syntax_msg: syntax.message,
            attempted_changes: applied.changes,
          },
        );
    }
    await ctx.sandbox.writeFile(rel, after);
    return {
      success: true,
      message: `${edits.length} line edits applied to ${posix.basename(rel)}`,
      target_file: rel,
      instructions: input.instructions,
      changes_made: applied.changes,
      total_edits: edits.length,
    };
  },
});

export const upstreamSearchReplace = defineTool({
  name: 'search_replace',
  description:
    'Replace text in a file: the first place old_string occurs, character for character (whitespace included), becomes new_string.',
  input: z.object({ file_path: z.string(), old_string: z.string(), new_string: z.string() }),
  advertised: schema(
    {
      file_path: { type: 'string', description: 'The file to change, relative to the workspace root.' },
      old_string: {
        type: 'string',
        description: 'The text to find; it must match exactly, whitespace included.',
      },
      new_string: { type: 'string', description: 'The text to put in its place.' },
    },
    ['file_path', 'old_string', 'new_string'],
  ),
  async run(input, ctx) {
    const rel = guarded(ctx, 'search_replace', input.file_path);
    if (typeof rel !== 'string') return rel;
    const before = await readText(ctx, rel, 'search_replace');
    if (before === undefined) return fail(`Failed to read file: ${rel} does not exist`);
    if (!before.includes(input.old_string))
      return fail(`Old string not found in file ${input.file_path}`, { file_path: input.file_path });
    await ctx.sandbox.writeFile(
      rel,
      before.replace(input.old_string, () => input.new_string),
    );
    return {
      success: true,
      message: `Text replaced in ${input.file_path}`,
      file_path: input.file_path,
      old_string: input.old_string,
      new_string: input.new_string,
    };
  },
});

export const upstreamWriteFile = defineTool({
  name: 'write_file',
  description: 'Create a file, or replace all of an existing one, with the content given.',
  input: z.object({ file_path: z.string(), content: z.string() }),
  advertised: schema(
    {
      file_path: { type: 'string', description: 'The file to write, relative to the workspace root.' },
      content: { type: 'string', description: 'Everything the file is to hold.' },
    },
    ['file_path', 'content'],
  ),
  async run(input, ctx) {
    const rel = guarded(ctx, 'write_file', input.file_path);
    if (typeof rel !== 'string') return rel;
    await ctx.sandbox.writeFile(rel, input.content);
    return { success: true, message: `Wrote ${input.file_path}`, file_path: input.file_path };
  },
});
