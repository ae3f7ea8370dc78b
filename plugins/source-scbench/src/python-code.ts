/**
 * The code of a Python source with every string literal's content and every comment blanked to
 * spaces (newlines kept), so offsets and lines stay those of the source and a pattern never
 * matches text a test only writes out (`"import requests\n"` as a sample file's content).
 */
export function codeOnly(source: string): string {
  const out = source.split('');
  let i = 0;
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  while (i < source.length) {
    const char = source[i]!;
    if (char === '#') {
      const end = source.indexOf('\n', i);
      const stop = end === -1 ? source.length : end;
      blank(i, stop);
      i = stop;
      continue;
    }
    if (char !== '"' && char !== "'") {
      i++;
      continue;
    }
    const triple = source.startsWith(char.repeat(3), i);
    const quote = triple ? char.repeat(3) : char;
    let j = i + quote.length;
    while (j < source.length) {
      // A backslash keeps the next character inside the literal, in raw strings too.
      if (source[j] === '\\') {
        j += 2;
        continue;
      }
      if (source.startsWith(quote, j)) break;
      if (!triple && source[j] === '\n') break;
      j++;
    }
    blank(i + quote.length, Math.min(j, source.length));
    i = Math.min(j + quote.length, source.length);
  }
  return out.join('');
}

/** 1-based line and column of `offset`. */
export function position(source: string, offset: number): { line: number; column: number } {
  const before = source.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

const indentOf = (line: string) => /^[ \t]*/.exec(line)![0].length;

/**
 * Whether the statement at `lineIndex` (0-based, of `code` split in lines) runs only when an
 * import may fail: inside a `try:` whose handlers catch ImportError (or everything), or under
 * `if TYPE_CHECKING:`. Such an import is optional, not a requirement.
 */
export function optionalAt(lines: readonly string[], lineIndex: number): boolean {
  let indent = indentOf(lines[lineIndex]!);
  for (let k = lineIndex - 1; k >= 0 && indent > 0; k--) {
    const line = lines[k]!;
    if (line.trim() === '') continue;
    const own = indentOf(line);
    if (own >= indent) continue;
    indent = own;
    const statement = line.trim();
    if (/^if\s+(typing\.)?TYPE_CHECKING\s*:/.test(statement)) return true;
    if (/^try\s*:/.test(statement)) {
      for (let n = lineIndex + 1; n < lines.length; n++) {
        const next = lines[n]!;
        if (next.trim() === '' || indentOf(next) > own) continue;
        if (indentOf(next) < own) break;
        const handler = /^except\b(.*):/.exec(next.trim());
        if (!handler) {
          if (/^(else|finally)\s*:/.test(next.trim())) continue;
          break;
        }
        const caught = handler[1]!.trim();
        if (caught === '' || /\b(ImportError|ModuleNotFoundError|Exception|BaseException)\b/.test(caught))
          return true;
      }
    }
  }
  return false;
}

/** Every module a Python source imports for sure (not relative, not optional), with its 1-based line. */
export function importedModules(source: string): { module: string; line: number }[] {
  const code = codeOnly(source);
  const lines = code.split('\n');
  const found: { module: string; line: number }[] = [];
  for (const [index, text] of lines.entries()) {
    const statement = text.trim();
    let modules: string[] = [];
    const from = /^from\s+([A-Za-z_][\w.]*)\s+import\b/.exec(statement);
    if (from) modules = [from[1]!];
    else {
      const plain = /^import\s+(.+)$/.exec(statement);
      if (plain)
        modules = plain[1]!
          .split(/[;]/)[0]!
          .split(',')
          .map((part) =>
            part
              .trim()
              .split(/\s+as\s+/)[0]!
              .trim(),
          )
          .filter((name) => /^[A-Za-z_][\w.]*$/.test(name));
    }
    if (modules.length === 0 || optionalAt(lines, index)) continue;
    for (const module of modules) found.push({ module, line: index + 1 });
  }
  return found;
}
