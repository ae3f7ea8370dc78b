export type Row = Record<string, number | boolean | null>;

export function percent(value: number | boolean | null | undefined): string {
  return typeof value === 'number' ? (value * 100).toFixed(1) : '-';
}

export function fixed(value: number | boolean | null | undefined, digits: number): string {
  return typeof value === 'number' ? value.toFixed(digits) : '-';
}

export function plusMinus(row: Row, metric: string, digits: number): string {
  const average = row[`${metric}.mean`];
  if (typeof average !== 'number') return '-';
  return `${average.toFixed(digits)}±${fixed(row[`${metric}.std`], digits)}`;
}

/** Columns padded to their widest cell; the first column left-aligned, the others right-aligned. */
export function grid(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
