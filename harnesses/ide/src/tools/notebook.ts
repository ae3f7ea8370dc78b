import { z } from 'zod';
import { defineTool, fail, readText } from './tool.js';
import { writeChecked } from './write.js';

interface Cell {
  cell_type: string;
  source: string | string[];
  metadata?: Record<string, unknown>;
  outputs?: unknown[];
  execution_count?: number | null;
}

const codeLanguages = new Set(['python', 'javascript', 'typescript', 'r', 'sql', 'shell', 'other']);

function sourceText(cell: Cell): string {
  return Array.isArray(cell.source) ? cell.source.join('') : cell.source;
}

/** Notebook sources are stored as lines that keep their newlines. */
function sourceLines(text: string): string[] {
  return text.split(/(?<=\n)/).filter((line) => line !== '');
}

export const editNotebook = defineTool({
  name: 'edit_notebook',
  description:
    'Edit a Jupyter notebook cell: create a cell at an index, or replace old_string (which must be unique in the cell) with new_string.',
  input: z.object({
    target_notebook: z.string().describe('Path of the .ipynb file, relative to the workspace'),
    cell_idx: z.number().int().nonnegative().describe('Index of the cell (0-based)'),
    is_new_cell: z.boolean().describe('Create a new cell at cell_idx instead of editing one'),
    cell_language: z
      .enum(['python', 'markdown', 'javascript', 'typescript', 'r', 'sql', 'shell', 'raw', 'other'])
      .describe('Language of the cell'),
    old_string: z.string().default('').describe('Text to replace in the cell (empty for a new cell)'),
    new_string: z.string().describe('Replacement text, or the content of the new cell'),
  }),
  async run(input, ctx) {
    const rel = ctx.policy.resolve(input.target_notebook);
    if (!rel.endsWith('.ipynb')) return fail(`${rel} is not a notebook (.ipynb)`);
    const before = await readText(ctx, rel, 'edit_notebook');
    let notebook: { cells: Cell[] } & Record<string, unknown>;
    try {
      notebook =
        before === undefined
          ? { cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 }
          : (JSON.parse(before) as typeof notebook);
    } catch (error) {
      return fail(`${rel} is not valid notebook JSON: ${(error as Error).message}`);
    }
    if (!Array.isArray(notebook.cells)) return fail(`${rel} has no cells array`);
    const type = codeLanguages.has(input.cell_language) ? 'code' : input.cell_language;
    if (input.is_new_cell) {
      if (input.cell_idx > notebook.cells.length)
        return fail(`cell_idx ${input.cell_idx} is past the end (${notebook.cells.length} cells)`);
      const cell: Cell = { cell_type: type, metadata: {}, source: sourceLines(input.new_string) };
      if (type === 'code') Object.assign(cell, { outputs: [], execution_count: null });
      notebook.cells.splice(input.cell_idx, 0, cell);
    } else {
      const cell = notebook.cells[input.cell_idx];
      if (!cell) return fail(`cell ${input.cell_idx} does not exist (${notebook.cells.length} cells)`);
      const text = sourceText(cell);
      const count = input.old_string === '' ? 0 : text.split(input.old_string).length - 1;
      if (count !== 1)
        return fail(
          count === 0
            ? `old_string not found in cell ${input.cell_idx}`
            : `old_string occurs ${count} times in cell ${input.cell_idx}; it must be unique`,
        );
      cell.source = sourceLines(text.replace(input.old_string, () => input.new_string));
    }
    const result = await writeChecked(ctx, rel, before, `${JSON.stringify(notebook, null, 1)}\n`);
    return { ...result, target_notebook: rel, cell_idx: input.cell_idx, total_cells: notebook.cells.length };
  },
});
