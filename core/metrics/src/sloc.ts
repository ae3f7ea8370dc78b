/** A span of source that holds no token start, except possibly its first character. */
export interface MaskedSpan {
  start: number;
  end: number;
  /** Zero-based line of `end`. */
  endLine: number;
}

/**
 * Marks the lines that start a token other than a comment: `masked` spans (comments, docstrings,
 * the inside of multi-line strings) hold no token start. Returns one flag per line (zero-based).
 */
export function codeLines(text: string, masked: MaskedSpan[]): Uint8Array {
  let lineCount = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineCount++;
  const lines = new Uint8Array(lineCount);
  const spans = [...masked].sort((a, b) => a.start - b.start);
  let line = 0;
  let next = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (next < spans.length && spans[next]!.end <= i) next++;
    const span = spans[next];
    if (span && span.start <= i) {
      i = span.end;
      line = span.endLine;
      next++;
      continue;
    }
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    else if (c !== 32 && c !== 9 && c !== 13 && c !== 12 && c !== 11 && c !== 92) lines[line] = 1;
    i++;
  }
  return lines;
}

/** prefix[i] = number of code lines among lines 0..i-1. */
export function prefixSums(lines: Uint8Array): Uint32Array {
  const prefix = new Uint32Array(lines.length + 1);
  for (let i = 0; i < lines.length; i++) prefix[i + 1] = prefix[i]! + lines[i]!;
  return prefix;
}

/** Code lines within zero-based lines [first, last]. */
export function countIn(prefix: Uint32Array, first: number, last: number): number {
  return prefix[Math.min(last + 1, prefix.length - 1)]! - prefix[first]!;
}
