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
    // Include a string prefix (r, b, f, u and pairs) in the literal.
    let start = at;
    while (start > 0 && start > at - 2 && /[rRbBuUfF]/.test(text[start - 1]!)) start--;
    if (start < at && start > 0 && /[\w]/.test(text[start - 1]!)) start = at;
    const quote = text[at]!;
    const triple = text.startsWith(quote === '"' ? '"""' : "'''", at);
    const close = triple ? (quote === '"' ? '"""' : "'''") : quote;
    // Character codes, not one-character strings: a string outside Latin-1 would allocate one
    // string per character.
    const q = quote.charCodeAt(0);
    let i = at + close.length;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 92 /* \\ */) i += 2;
      else if (c === q && (!triple || (text.charCodeAt(i + 1) === q && text.charCodeAt(i + 2) === q))) {
        i += close.length;
        break;
      } else if (c === 10 && !triple) break;
      else i++;
    }
    const end = Math.min(i, text.length);
    strings.push(start, end);
    pythonStart.lastIndex = end;
  }
  return { comments, strings };
}

function lexC(text: string, templates: boolean): LexicalTokens {
  const comments: number[] = [];
  const strings: number[] = [];
  // Template literals nest: `a ${ `b ${c}` } d`. Each entry is the brace depth at which a
  // substitution returns to its template.
  const substitutions: { depth: number; start: number }[] = [];
  let depth = 0;
  let i = 0;
  const n = text.length;
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
