/**
 * The released harness's line edits (harness.py, `EnhancedTools._apply_line_edits`), as
 * behaviour: the file is split into lines that keep their line ends; every `delete` runs first,
 * highest line number first, then every `replace`, then every `insert`, each group highest first
 * and each edit on the lines as the edits before it left them. Edits of another `type` are
 * skipped. A replace whose content holds several lines puts them where the one line was, and one
 * past the end pads the file with empty lines; an insert past the end appends.
 */
export interface UpstreamLineEdit {
  type?: unknown;
  line_number?: number;
  content?: string;
}

/** The characters Python's `str.splitlines` ends a line at (besides \r\n, one break). */
const breaks = new Set(['\n', '\r', '\v', '\f', '\u001c', '\u001d', '\u001e', '\u0085', '\u2028', '\u2029']);

/** Python's `str.splitlines(keepends=True)`: \n, \r\n, \r and the other breaks Python knows. */
export function splitLinesKeepEnds(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (!breaks.has(text[i]!)) continue;
    if (text[i] === '\r' && text[i + 1] === '\n') i++;
    lines.push(text.slice(start, i + 1));
    start = i + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** `list[index] = value` with Python's negative indices and IndexError. */
function setAt(lines: string[], index: number, value: string): void {
  const at = index < 0 ? index + lines.length : index;
  if (at < 0 || at >= lines.length) throw new Error('list assignment index out of range');
  lines[at] = value;
}

/** `list.insert(index, value)`: a negative index counts from the end, past either end clamps. */
function insertAt(lines: string[], index: number, value: string): void {
  const at = index < 0 ? Math.max(0, index + lines.length) : Math.min(index, lines.length);
  lines.splice(at, 0, value);
}

const preview = (text: string) => text.replace(/\n$/, '').slice(0, 50);

/** Edits of one type in the order they are applied: highest line first, ties as given. */
function ofType(edits: UpstreamLineEdit[], type: string): UpstreamLineEdit[] {
  return edits
    .filter((edit) => edit.type === type)
    .map((edit, order) => ({ edit, order }))
    .sort((a, b) => (b.edit.line_number ?? 0) - (a.edit.line_number ?? 0) || a.order - b.order)
    .map(({ edit }) => edit);
}

/** The lines after the edits, and a note per edit of what it did. Throws where upstream's code raises. */
export function applyUpstreamLineEdits(
  original: string[],
  edits: UpstreamLineEdit[],
): { lines: string[]; changes: string[] } {
  let lines = [...original];
  const changes: string[] = [];
  for (const edit of ofType(edits, 'delete')) {
    const number = edit.line_number ?? 1;
    const index = Math.max(0, number - 1);
    if (index < lines.length) {
      changes.push(`Line ${number}: deleted '${preview(lines[index]!)}'`);
      lines.splice(index, 1);
    } else changes.push(`Line ${number}: not deleted, the file has no such line`);
  }
  for (const edit of ofType(edits, 'replace')) {
    const number = edit.line_number ?? 1;
    const content = edit.content ?? '';
    const index = Math.max(0, number - 1);
    if (content.includes('\n')) {
      const parts = content.split('\n');
      const last = parts.at(-1)!;
      // A trailing newline leaves an empty element: it adds no text, but later edits count it.
      const replacement = [...parts.slice(0, -1).map((part) => `${part}\n`), last ? `${last}\n` : ''];
      if (number === 1 && replacement.length > 10 && replacement[0]!.startsWith('#!/usr/bin/env')) {
        lines = [...replacement];
        changes.push(`Line 1: the whole file replaced by ${replacement.length} lines`);
      } else if (index < lines.length) {
        const old = lines[index]!;
        lines.splice(index, 1, ...replacement);
        changes.push(`Line ${number}: '${preview(old)}' replaced by ${replacement.length} lines`);
      } else {
        while (lines.length < number) lines.push('\n');
        replacement.forEach((line, i) => {
          if (number - 1 + i < lines.length) setAt(lines, number - 1 + i, line);
          else lines.push(line);
        });
        changes.push(`Line ${number}: ${replacement.length} lines added past the end`);
      }
    } else if (index < lines.length) {
      changes.push(`Line ${number}: '${preview(lines[index]!)}' replaced by '${preview(content)}'`);
      lines[index] = `${content}\n`;
    } else {
      while (lines.length < number) lines.push('\n');
      setAt(lines, number - 1, `${content}\n`);
      changes.push(`Line ${number}: '${preview(content)}' added past the end`);
    }
  }
  for (const edit of ofType(edits, 'insert')) {
    const number = edit.line_number ?? 1;
    const content = edit.content ?? '';
    const index = Math.max(0, number - 1);
    if (index <= lines.length) {
      insertAt(lines, index, `${content}\n`);
      changes.push(`Line ${number}: inserted '${preview(content)}'`);
    } else {
      lines.push(`${content}\n`);
      changes.push(`Line ${number}: appended '${preview(content)}' after the end`);
    }
  }
  return { lines, changes };
}
