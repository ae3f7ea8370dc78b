/** Splits a growing text stream into complete lines, keeping the unfinished tail for later. */
export class LineBuffer {
  private pending = '';

  push(chunk: string): string[] {
    const text = this.pending + chunk;
    const lines = text.split('\n');
    this.pending = lines.pop() ?? '';
    return lines.map(stripCr).filter((line) => line.trim() !== '');
  }

  /** The unfinished last line, if any: the stream has ended. */
  flush(): string[] {
    const rest = stripCr(this.pending);
    this.pending = '';
    return rest.trim() === '' ? [] : [rest];
  }
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** The last `max` characters of a text, marked as cut when it was longer. */
export function tail(text: string, max = 2000): string {
  const trimmed = text.trim();
  return trimmed.length <= max ? trimmed : `…${trimmed.slice(trimmed.length - max)}`;
}
