import { formatColumns } from '@longhaul/core/light';

/**
 * The terminal's width: the stream's own when it is a terminal, else `COLUMNS` when set, else
 * none (a pipe keeps whole lines, for grep).
 */
export function terminalWidth(
  stream: { isTTY?: boolean; columns?: number } = process.stdout,
): number | undefined {
  if (stream.isTTY && stream.columns !== undefined && stream.columns > 0) return stream.columns;
  const columns = Number(process.env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : undefined;
}

/** Words of `text` in lines of at most `width` characters (a longer word keeps a line of its own). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}

/**
 * `formatColumns`, fitted to `width`: the last column wrapped beside the others when at least 24
 * characters remain for it; else each row keeps its first `inline` columns on its line and the
 * others follow on lines of their own, indented, the last one wrapped (a header row keeps only
 * its first columns).
 */
export function fitColumns(rows: string[][], width: number | undefined, inline: number): string {
  const table = formatColumns(rows);
  if (width === undefined || table.split('\n').every((line) => line.length <= width)) return table;
  const widthsOf = (count: number) =>
    Array.from({ length: count }, (_, index) => Math.max(...rows.map((row) => row[index]?.length ?? 0)));
  const pad = (row: string[], widths: number[]) =>
    widths.map((cellWidth, index) => (row[index] ?? '').padEnd(cellWidth)).join('  ');
  const leading = widthsOf(rows[0]!.length - 1);
  const prefix = leading.reduce((sum, cell) => sum + cell + 2, 0);
  if (width - prefix >= 24)
    return rows
      .map((row) => {
        const [first, ...rest] = wrap(row[row.length - 1] ?? '', width - prefix);
        return [
          `${pad(row, leading)}  ${first}`.trimEnd(),
          ...rest.map((line) => `${' '.repeat(prefix)}${line}`),
        ].join('\n');
      })
      .join('\n');
  const kept = widthsOf(inline);
  return rows
    .map((row, index) => {
      const line = pad(row, kept).trimEnd();
      if (index === 0) return line;
      // Only the last column (prose) is wrapped: a path or a name stays whole, to be copied.
      const below = row
        .slice(inline)
        .flatMap((cell, at, cells) =>
          cell === '' ? [] : at === cells.length - 1 ? wrap(cell, Math.max(width - 4, 20)) : [cell],
        );
      return [line, ...below.map((part) => `    ${part}`)].join('\n');
    })
    .join('\n');
}
