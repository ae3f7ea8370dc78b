import { createHash } from 'node:crypto';
import type { LanguageSpec } from './languages/types.js';

/** A span of the file that hashes as a placeholder (`$STR`) or not at all (comments, docstrings). */
export interface LexicalSpan {
  start: number;
  end: number;
  replacement: string;
}

const token =
  /([A-Za-z_\u00C0-\uFFFF][\w\u00C0-\uFFFF]*)|(0[xXoObB][\w]+|\d[\w]*(?:\.[\w]*)?(?:[eE][+-]?\d+)?[jJlLn]?|\.\d[\w]*(?:[eE][+-]?\d+)?)|(\n\s*)|(\S)/g;

const declarationWords = new Set([
  'def',
  'function',
  'func',
  'async',
  'static',
  'get',
  'set',
  'public',
  'private',
  'protected',
  'override',
  'abstract',
  'readonly',
]);
const qualifiers = new Set(['self', 'cls', 'this']);

const verbatim = 0;
const name = 1;
const newline = 2;

/**
 * Hashes blocks of one file in normalized form: identifiers become $VAR1..n in order of first
 * appearance in the block, literals $STR/$INT/$FLOAT/$BOOL/$NONE, comments and docstrings are
 * dropped; keywords and punctuation stay. For indentation-sensitive Python each line's indent
 * relative to the block's first line is kept. The file is tokenized once; each block re-reads
 * only its own tokens. The same tokens give the calls of each name (for recursion).
 */
export class FileTokens {
  private readonly starts: number[] = [];
  private readonly values: string[] = [];
  private readonly kinds: number[] = [];
  private readonly indents: number[] = [];
  private readonly indentSensitive: boolean;

  constructor(
    private readonly text: string,
    spans: readonly LexicalSpan[],
    private readonly spec: LanguageSpec,
  ) {
    this.indentSensitive = spec.family === 'python';
    let position = 0;
    for (const span of spans) {
      if (span.start > position) this.tokenize(position, span.start);
      if (span.replacement) this.push(span.start, span.replacement, verbatim, 0);
      position = Math.max(position, span.end);
    }
    if (position < text.length) this.tokenize(position, text.length);
  }

  private push(start: number, value: string, kind: number, indent: number): void {
    this.starts.push(start);
    this.values.push(value);
    this.kinds.push(kind);
    this.indents.push(indent);
  }

  private tokenize(from: number, to: number): void {
    const chunk = this.text.slice(from, to);
    const { keywords, literalWords } = this.spec;
    token.lastIndex = 0;
    for (let m = token.exec(chunk); m; m = token.exec(chunk)) {
      const [whole, word, number, lineBreak] = m;
      const at = from + m.index;
      if (word !== undefined) {
        if (keywords.has(word)) this.push(at, word, verbatim, 0);
        else if (Object.hasOwn(literalWords, word)) this.push(at, literalWords[word]!, verbatim, 0);
        else this.push(at, word, name, 0);
      } else if (number !== undefined) {
        const integer = /^0[xXoObB]/.test(number) || !/[.eE]/.test(number) || /[nlL]$/.test(number);
        this.push(at, integer ? '$INT' : '$FLOAT', verbatim, 0);
      } else if (lineBreak !== undefined) {
        if (this.indentSensitive)
          this.push(at, '', newline, lineBreak.length - 1 - lineBreak.lastIndexOf('\n'));
      } else this.push(at, whole, verbatim, 0);
    }
  }

  private callIndex: Map<string, number[]> | undefined;

  /**
   * Offsets of `name(` calls: a name token followed by `(`, not a declaration (after `def`,
   * `function`, `func` or a method modifier) and, after a dot, only on `self`, `cls` or `this`
   * (or, in Go, any receiver).
   */
  private calls(): Map<string, number[]> {
    if (this.callIndex) return this.callIndex;
    const index = new Map<string, number[]>();
    const { values, kinds, starts } = this;
    const anyReceiver = this.spec.family === 'go';
    for (let i = 0; i + 1 < values.length; i++) {
      if (kinds[i] !== name || values[i + 1] !== '(') continue;
      const previous = values[i - 1];
      if (previous !== undefined && declarationWords.has(previous)) continue;
      if (previous === '*' && values[i - 2] === 'function') continue;
      if (anyReceiver && previous === ')') continue;
      if (previous === '.' && !anyReceiver && !qualifiers.has(values[i - 2] ?? '')) continue;
      const list = index.get(values[i]!);
      if (list) list.push(starts[i]!);
      else index.set(values[i]!, [starts[i]!]);
    }
    this.callIndex = index;
    return index;
  }

  /** Calls of `name` in [start, end), not counting a declaration of it at `start`. */
  callsOf(callee: string, start: number, end: number): number {
    const positions = this.calls().get(callee);
    if (!positions) return 0;
    let count = 0;
    for (const at of positions) if (at > start && at < end) count++;
    return count;
  }

  /** The hash of the block [start, end). */
  hash(start: number, end: number): string {
    let low = 0;
    let high = this.starts.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.starts[mid]! < start) low = mid + 1;
      else high = mid;
    }
    const baseIndent = start - (this.text.lastIndexOf('\n', start - 1) + 1);
    const names = new Map<string, string>();
    const out: string[] = [];
    let lastNewline = false;
    for (let i = low; i < this.starts.length && this.starts[i]! < end; i++) {
      const kind = this.kinds[i]!;
      if (kind === newline) {
        const marker = `\n${this.indents[i]! - baseIndent}`;
        if (lastNewline) out[out.length - 1] = marker;
        else out.push(marker);
        lastNewline = true;
        continue;
      }
      lastNewline = false;
      const value = this.values[i]!;
      if (kind === name) {
        let renamed = names.get(value);
        if (!renamed) {
          renamed = `$VAR${names.size + 1}`;
          names.set(value, renamed);
        }
        out.push(renamed);
      } else out.push(value);
    }
    return createHash('md5').update(out.join(' ')).digest('base64');
  }
}
