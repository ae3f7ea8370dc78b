import type { RuleFamily } from './languages/types.js';

/** Comments and string literals of a file, found lexically (faster than asking the syntax tree). */
export interface LexicalTokens {
  /** [start, end) offsets, sorted. */
  comments: number[];
  strings: number[];
}

const pythonStart = /[#'"]/g;
const cNext = /[/'"`{}]/g;
/** After one of these (or at the start), `/` begins a regular expression rather than a division. */
const regexAfter =
  /[(,=:[!&|?{};+\-*%<>~^]$|(?:^|[^\w$])(?:return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await)$/;

export function lex(text: string, family: RuleFamily): LexicalTokens {
  return family === 'python' ? lexPython(text) : lexC(text, family === 'typescript');
}

function lexPython(text: string): LexicalTokens {
  const comments: number[] = [];
  const strings: number[] = [];
  pythonStart.lastIndex = 0;
  // `test`, not `exec`: no match object per comment or string; the pattern is one character, so
  // it ends just before `lastIndex`.
  while (pythonStart.test(text)) {
    const at = pythonStart.lastIndex - 1;
    if (text[at] === '#') {
      const end = text.indexOf('\n', at);
      const stop = end === -1 ? text.length : end;
      comments.push(at, stop);
      pythonStart.lastIndex = stop;
      continue;
    }
    const start = prefixStart(text, at);
    const end = stringEnd(text, at, formatted(text, start, at), comments);
    strings.push(start, end);
    pythonStart.lastIndex = end;
  }
  return { comments, strings };
}

/** Where the literal whose quote is at `at` begins: its prefix (r, b, f, u and pairs) included. */
function prefixStart(text: string, at: number): number {
  let start = at;
  while (start > 0 && start > at - 2 && /[rRbBuUfF]/.test(text[start - 1]!)) start--;
  if (start < at && start > 0 && /[\w]/.test(text[start - 1]!)) start = at;
  return start;
}

/** Whether the prefix text[start, at) makes an f-string. */
function formatted(text: string, start: number, at: number): boolean {
  for (let i = start; i < at; i++) if ((text.charCodeAt(i) | 32) === 102 /* f, F */) return true;
  return false;
}

/**
 * F-strings nested deeper than this are an error to Python (its tokenizer's limit): one nested
 * deeper is read as a literal without fields, which also bounds the recursion of the scan.
 */
const maxFStringNesting = 150;

/**
 * The end of the string literal whose opening quote is at `at`. In an f-string, what is inside
 * braces is an expression that, since Python 3.12, may hold strings in the same quotes and, in
 * braces, line breaks and comments (added to `comments`): `f"{", ".join(names)}"` is one literal.
 * `nesting` counts the f-strings around it.
 */
function stringEnd(text: string, at: number, fString: boolean, comments: number[], nesting = 0): number {
  const q = text.charCodeAt(at);
  const triple = text.charCodeAt(at + 1) === q && text.charCodeAt(at + 2) === q;
  const from = at + (triple ? 3 : 1);
  if (fString && nesting < maxFStringNesting) {
    const found = comments.length;
    const end = fStringEnd(text, from, q, triple, comments, nesting + 1);
    if (end !== -1) return end;
    comments.length = found;
  }
  return literalEnd(text, from, q, triple);
}

/** Whether the quote `q` at `i` closes the literal: with two more after it, for a triple-quoted one. */
const closes = (text: string, i: number, q: number, triple: boolean) =>
  !triple || (text.charCodeAt(i + 1) === q && text.charCodeAt(i + 2) === q);

/** The end of a literal without replacement fields, scanned from `from`, inside the quotes. */
function literalEnd(text: string, from: number, q: number, triple: boolean): number {
  // Character codes, not one-character strings: a string outside Latin-1 would allocate one
  // string per character.
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \\ */) i += 2;
    else if (c === q && closes(text, i, q, triple)) return i + (triple ? 3 : 1);
    else if (c === 10 && !triple) break;
    else i++;
  }
  return Math.min(i, text.length);
}

/**
 * The end of an f-string scanned from `from`, inside the quotes: its text, and in each pair of
 * braces (`{{` is a brace of the text) an expression, then after `:` a format that may hold
 * fields of its own. -1 when the literal does not end as Python 3.12 reads it (a line break in
 * the text of a one-line literal, or the end of the file): `literalEnd` then reads it as a
 * literal without fields, as before 3.12, so that an unclosed brace does not swallow the file.
 */
function fStringEnd(
  text: string,
  from: number,
  q: number,
  triple: boolean,
  comments: number[],
  nesting: number,
): number {
  // The open fields: for each, whether its expression is being read (and not its format).
  const fields: boolean[] = [];
  let brackets = 0;
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const inExpression = fields.length > 0 && fields[fields.length - 1]!;
    if (inExpression) {
      if (c === 39 || c === 34 /* ' " */) {
        const start = prefixStart(text, i);
        i = stringEnd(text, i, formatted(text, start, i), comments, nesting);
      } else if (c === 40 || c === 91 || c === 123 /* ( [ { */) {
        brackets++;
        i++;
      } else if ((c === 41 || c === 93 || c === 125) /* ) ] } */ && brackets > 0) {
        brackets--;
        i++;
      } else if (c === 125) {
        fields.pop();
        i++;
      } else if (c === 58 /* : */ && brackets === 0) {
        fields[fields.length - 1] = false;
        i++;
      } else if (c === 35 /* # */) {
        const end = text.indexOf('\n', i);
        const stop = end === -1 ? text.length : end;
        comments.push(i, stop);
        i = stop;
      } else i++;
      continue;
    }
    if (c === 92 /* \\ */) i += 2;
    else if (c === q && closes(text, i, q, triple)) return fields.length ? -1 : i + (triple ? 3 : 1);
    else if (c === 10 && !triple) return -1;
    else if (c === 123 /* { */ && text.charCodeAt(i + 1) === 123 && !fields.length) i += 2;
    else if (c === 123) {
      fields.push(true);
      brackets = 0;
      i++;
    } else if (c === 125 /* } */ && fields.length) {
      fields.pop();
      i++;
    } else i++;
  }
  return -1;
}

function lexC(text: string, templates: boolean): LexicalTokens {
  const comments: number[] = [];
  const strings: number[] = [];
  // Template literals nest: `a ${ `b ${c}` } d`. Each entry is the brace depth at which a
  // substitution returns to its template.
  const substitutions: { depth: number; start: number }[] = [];
  let depth = 0;
  const n = text.length;
  // A first line `#!…` names the interpreter: it is neither code to lex nor a comment.
  let i = text.startsWith('#!') ? text.indexOf('\n') + 1 || n : 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 123 /* { */) {
      depth++;
      i++;
    } else if (c === 125 /* } */) {
      if (substitutions.length && substitutions[substitutions.length - 1]!.depth === depth) {
        depth--;
        i = scanTemplate(i + 1, substitutions.pop()!.start);
      } else {
        depth--;
        i++;
      }
    } else if (c === 47 /* / */) {
      const next = text.charCodeAt(i + 1);
      if (next === 47) {
        const end = text.indexOf('\n', i);
        const stop = end === -1 ? n : end;
        comments.push(i, stop);
        i = stop;
      } else if (next === 42) {
        const end = text.indexOf('*/', i + 2);
        const stop = end === -1 ? n : end + 2;
        comments.push(i, stop);
        i = stop;
      } else if (templates && regexAfter.test(text.slice(Math.max(0, i - 12), i).trimEnd())) {
        i = scanRegex(i);
      } else i++;
    } else if (c === 39 || c === 34 /* ' " */) {
      const start = i;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 92) i += 2;
        else if (d === c) {
          i++;
          break;
        } else if (d === 10) break;
        else i++;
      }
      strings.push(start, Math.min(i, n));
    } else if (c === 96 /* ` */) {
      i = templates ? scanTemplate(i + 1, i) : rawString(i);
    } else {
      cNext.lastIndex = i + 1;
      const found = cNext.exec(text);
      i = found ? found.index : n;
    }
  }
  return { comments, strings: outermost(strings) };

  /** Scans template text from `from`; records the literal, or opens a substitution. */
  function scanTemplate(from: number, start: number): number {
    let j = from;
    while (j < n) {
      const d = text.charCodeAt(j);
      if (d === 92) j += 2;
      else if (d === 96) {
        strings.push(start, j + 1);
        return j + 1;
      } else if (d === 36 && text.charCodeAt(j + 1) === 123) {
        // The closing brace of the substitution resumes the literal.
        depth++;
        substitutions.push({ depth, start });
        return j + 2;
      } else j++;
    }
    strings.push(start, n);
    return n;
  }

  function rawString(start: number): number {
    const end = text.indexOf('`', start + 1);
    const stop = end === -1 ? n : end + 1;
    strings.push(start, stop);
    return stop;
  }

  function scanRegex(start: number): number {
    let j = start + 1;
    let inClass = false;
    while (j < n) {
      const d = text.charCodeAt(j);
      if (d === 92) j += 2;
      else if (d === 10) return start + 1;
      else if (d === 91) {
        inClass = true;
        j++;
      } else if (d === 93) {
        inClass = false;
        j++;
      } else if (d === 47 && !inClass) {
        j++;
        while (j < n && /[a-z]/.test(text[j]!)) j++;
        strings.push(start, j);
        return j;
      } else j++;
    }
    return start + 1;
  }
}

/** Sorted [start, end) pairs without the spans that lie inside another (strings in substitutions). */
function outermost(pairs: number[]): number[] {
  const spans: [number, number][] = [];
  for (let i = 0; i < pairs.length; i += 2) spans.push([pairs[i]!, pairs[i + 1]!]);
  spans.sort((a, b) => a[0] - b[0]);
  const result: number[] = [];
  let reach = -1;
  for (const [start, end] of spans) {
    if (end <= reach) continue;
    result.push(start, end);
    reach = end;
  }
  return result;
}
