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

/**
 * `formatTable` within `width` characters: when the table is wider, its columns are split into
 * tables one under another, each repeating the first column (the row labels), so every figure
 * keeps its label and no line wraps. Without a width (a pipe), one table: whole rows, for grep.
 */
export function formatTableWithin(header: string[], rows: string[][], width: number | undefined): string {
  const whole = formatTable(header, rows);
  if (width === undefined || whole.split('\n').every((line) => line.length <= width)) return whole;
  const widthOf = (column: number) =>
    Math.max(header[column]!.length, ...rows.map((row) => (row[column] ?? '').length));
  const blocks: number[][] = [];
  let block: number[] = [];
  let used = widthOf(0);
  for (let column = 1; column < header.length; column++) {
    const more = 2 + widthOf(column);
    if (block.length > 0 && used + more > width) {
      blocks.push(block);
      block = [];
      used = widthOf(0);
    }
    block.push(column);
    used += more;
  }
  if (block.length > 0) blocks.push(block);
  const pick = (cells: string[], columns: number[]) => [
    cells[0] ?? '',
    ...columns.map((column) => cells[column] ?? ''),
  ];
  return blocks
    .map((columns) =>
      formatTable(
        pick(header, columns),
        rows.map((row) => pick(row, columns)),
      ),
    )
    .join('\n\n');
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
