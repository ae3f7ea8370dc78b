import type { TableFigure } from '../contracts/figure.js';

/** A table's header and text cells: printed in the terminal, shown in the HTML report. */
export interface TextGrid {
  header: string[];
  cells: string[][];
}

/**
 * A plain-text table for terminal reports: columns padded to their widest cell, the first column
 * left-aligned (labels), the others right-aligned (figures), two spaces between columns.
 */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** A table of text cells (a terminal table's header and rows) as a figure. */
export function textTable(id: string, title: string, header: string[], cells: string[][]): TableFigure {
  const keys = header.map((label, column) => `c${column}:${label}`);
  return {
    kind: 'table',
    id,
    title,
    columns: header.map((label, column) => ({ key: keys[column]!, label, format: 'text' })),
    rows: cells.map((row) => Object.fromEntries(keys.map((key, column) => [key, row[column] ?? null]))),
  };
}
