import type { LanguageSpec } from './languages/types.js';

/** A span of the file that hashes as a placeholder (`$STR`) or not at all (comments, docstrings). */
export interface LexicalSpan {
  start: number;
  end: number;
  replacement: string;
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 13 || c === 12 || c === 11;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isIdentifierStart = (c: number) =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c >= 0xc0;
const isIdentifierPart = (c: number) => isIdentifierStart(c) || isDigit(c);

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

/**
 * Keywords, punctuation and placeholders share ids across files. An id indexes the word; what a
 * hash mixes in is the word's code, computed from its characters, so hashes compare across files,
 * threads and processes whatever order the words were first seen in.
 */
const sharedIds = new Map<string, number>();
const sharedWords: string[] = [];
const sharedCodes: number[] = [];
function sharedId(value: string): number {
  let id = sharedIds.get(value);
  if (id === undefined) {
    id = sharedWords.length;
    sharedIds.set(value, id);
    sharedWords.push(value);
    sharedCodes.push(wordCode(value));
  }
  return id;
}

/** FNV-1a: the start, one character mixed in, and the positive 31-bit code at the end. */
const fnvStart = 0x811c9dc5;
const fnvMix = (code: number, char: number) => Math.imul(code ^ char, 0x01000193);
const fnvCode = (code: number) => (code >>> 1) + 1;

/** The code of a word (names hash as negative ordinals, line breaks below them). */
function wordCode(word: string): number {
  let code = fnvStart;
  for (let i = 0; i < word.length; i++) code = fnvMix(code, word.charCodeAt(i));
  return fnvCode(code);
}

const stringId = sharedId('$STR');
const intId = sharedId('$INT');
const floatId = sharedId('$FLOAT');
/** Shared ids of single ASCII characters (punctuation), by character code, filled on first sight. */
const asciiIds = new Int32Array(128).fill(-1);
function charId(c: number, char: string): number {
  if (c >= 128) return sharedId(char);
  let id = asciiIds[c]!;
  if (id < 0) id = asciiIds[c] = sharedId(char);
  return id;
}

const verbatim = 0;
const name = 1;
const newline = 2;

/**
 * The words of every file of one language, in an open-addressing table keyed by a hash of their
 * characters: a word already seen, in this file or an earlier one, is found from the text itself,
 * without copying it out as a string or classifying it again (most words of a file are repeats, and
 * most of a project's words are in many files). Results never depend on the ids it gives: a hash
 * renames names by order of appearance, so a full table is simply replaced by an empty one.
 */
class Vocabulary {
  /** Entry index + 1 of each slot, 0 for free. */
  slots = new Int32Array(1 << 14);
  readonly entryWords: string[] = [];
  readonly entryTokens: number[] = [];
  /** The names by id (for renaming, and for the calls of each name). */
  readonly names: string[] = [];
  /** Scratch for renaming: the block a name id was last seen in, and its ordinal there. */
  seenIn = new Int32Array(0);
  ordinal = new Int32Array(0);
  block = 0;

  constructor(private readonly spec: LanguageSpec) {}

  /** Whether it has grown past what is worth keeping for the next files. */
  get full(): boolean {
    return this.entryWords.length > maxVocabulary;
  }

  /**
   * The token of the word text[from, to) whose characters hash to `code`: a name's id (≥ 0), or
   * -1 - the shared id of a keyword or literal.
   */
  token(text: string, from: number, to: number, code: number): number {
    const { slots, entryWords } = this;
    const mask = slots.length - 1;
    const length = to - from;
    for (let slot = code & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[slot]! - 1;
      if (entry < 0) return this.add(slot, text.slice(from, to));
      const word = entryWords[entry]!;
      if (word.length !== length) continue;
      let same = true;
      for (let k = 0; k < length; k++) {
        if (word.charCodeAt(k) !== text.charCodeAt(from + k)) {
          same = false;
          break;
        }
      }
      if (same) return this.entryTokens[entry]!;
    }
  }

  /** Classifies a word seen for the first time and enters it at `slot`. */
  private add(slot: number, word: string): number {
    const { keywords, literalWords } = this.spec;
    let token: number;
    if (keywords.has(word)) token = -1 - sharedId(word);
    else if (Object.hasOwn(literalWords, word)) token = -1 - sharedId(literalWords[word]!);
    else {
      token = this.names.length;
      this.names.push(word);
    }
    this.entryWords.push(word);
    this.entryTokens.push(token);
    this.slots[slot] = this.entryWords.length;
    // At most half full, so a probe ends soon at a free slot.
    if (this.entryWords.length * 2 > this.slots.length) this.growSlots();
    return token;
  }

  private growSlots(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    this.entryWords.forEach((word, entry) => {
      let slot = wordCode(word) & mask;
      while (slots[slot]) slot = (slot + 1) & mask;
      slots[slot] = entry + 1;
    });
    this.slots = slots;
  }

  /** Starts renaming a block: ordinals from 1, and room for every name id. */
  startBlock(): number {
    if (this.seenIn.length < this.names.length) {
      this.seenIn = new Int32Array(this.names.length * 2);
      this.ordinal = new Int32Array(this.names.length * 2);
    }
    return ++this.block;
  }
}

/** Words a vocabulary holds before the next file starts a new one (a long-lived process scores many projects). */
const maxVocabulary = 1 << 20;
const vocabularies = new Map<LanguageSpec, Vocabulary>();

function vocabularyOf(spec: LanguageSpec): Vocabulary {
  let vocabulary = vocabularies.get(spec);
  if (!vocabulary || vocabulary.full) {
    vocabulary = new Vocabulary(spec);
    vocabularies.set(spec, vocabulary);
  }
  return vocabulary;
}

/**
 * Hashes blocks of one file in normalized form: identifiers become $VAR1..n in order of first
 * appearance in the block, literals $STR/$INT/$FLOAT/$BOOL/$NONE, comments and docstrings are
 * dropped; keywords and punctuation stay. For indentation-sensitive Python each line's indent
 * relative to the block's first line is kept. The file is tokenized once; each block re-reads
 * only its own tokens. The same tokens give the calls of each name (for recursion).
 */
export class FileTokens {
  /**
   * Offset, id and kind of each token (parallel arrays, the first `count` entries); a line break's
   * id is its indent. Typed arrays keep the tokens out of the collected heap: as plain arrays they
   * were a third of what the analysis of a tree allocated.
   */
  private starts: Int32Array;
  private ids: Int32Array;
  private kinds: Uint8Array;
  private count = 0;
  private readonly vocabulary: Vocabulary;
  private readonly indentSensitive: boolean;
  /** Open brackets at the scan position: a Python line break inside brackets is layout, not a token. */
  private brackets = 0;

  constructor(
    private readonly text: string,
    spans: readonly LexicalSpan[],
    private readonly spec: LanguageSpec,
  ) {
    this.indentSensitive = spec.family === 'python';
    this.vocabulary = vocabularyOf(spec);
    // About one token per four characters of source; `push` grows the arrays when there are more.
    const capacity = (text.length >> 2) + 16;
    this.starts = new Int32Array(capacity);
    this.ids = new Int32Array(capacity);
    this.kinds = new Uint8Array(capacity);
    let position = 0;
    for (const span of spans) {
      if (span.start > position) this.tokenize(position, span.start);
      if (span.replacement) this.pushShared(span.start, sharedId(span.replacement));
      position = Math.max(position, span.end);
    }
    if (position < text.length) this.tokenize(position, text.length);
  }

  private push(start: number, id: number, kind: number): void {
    if (this.count === this.starts.length) {
      const grown = this.count * 2;
      const starts = new Int32Array(grown);
      const ids = new Int32Array(grown);
      const kinds = new Uint8Array(grown);
      starts.set(this.starts);
      ids.set(this.ids);
      kinds.set(this.kinds);
      this.starts = starts;
      this.ids = ids;
      this.kinds = kinds;
    }
    this.starts[this.count] = start;
    this.ids[this.count] = id;
    this.kinds[this.count] = kind;
    this.count++;
  }

  private pushShared(start: number, id: number): void {
    // Adjacent string literals are one value (implicit concatenation): how the source splits it is layout.
    const last = this.count - 1;
    if (id === stringId && last >= 0 && this.kinds[last] === verbatim && this.ids[last] === stringId) return;
    this.push(start, id, verbatim);
  }

  /** A hand-written scanner: identifiers, numbers, line breaks (with their indent) and single characters. */
  private tokenize(from: number, to: number): void {
    const { text } = this;
    let i = from;
    while (i < to) {
      const c = text.charCodeAt(i);
      if (c === 10) {
        let j = i + 1;
        let lineStart = j;
        while (j < to) {
          const d = text.charCodeAt(j);
          if (d === 10) lineStart = ++j;
          else if (isSpace(d)) j++;
          else break;
        }
        if (this.indentSensitive && this.brackets === 0) this.push(i, j - lineStart, newline);
        i = j;
      } else if (isSpace(c)) i++;
      else if (isIdentifierStart(c)) {
        // The word's code as `wordCode` computes it, while finding its end.
        let code = fnvMix(fnvStart, c);
        let j = i + 1;
        for (let d = text.charCodeAt(j); j < to && isIdentifierPart(d); d = text.charCodeAt(++j))
          code = fnvMix(code, d);
        const token = this.vocabulary.token(text, i, j, fnvCode(code));
        if (token >= 0) this.push(i, token, name);
        else this.pushShared(i, -1 - token);
        i = j;
      } else if (isDigit(c) || (c === 46 && isDigit(text.charCodeAt(i + 1)))) {
        let j = i + 1;
        let float = c === 46;
        const radix = c === 48 && /[xXoObB]/.test(text[i + 1] ?? '');
        while (j < to) {
          const d = text.charCodeAt(j);
          if (d === 46) float = true;
          else if ((d === 101 || d === 69) && !radix) {
            float = true;
            const sign = text.charCodeAt(j + 1);
            if (sign === 43 || sign === 45) j++;
          } else if (!isIdentifierPart(d)) break;
          j++;
        }
        const suffix = text.charCodeAt(j - 1);
        const integer = radix || !float || suffix === 110 || suffix === 108 || suffix === 76;
        this.pushShared(i, integer ? intId : floatId);
        i = j;
      } else if (c === 92 && (text.charCodeAt(i + 1) === 10 || text.charCodeAt(i + 1) === 13)) {
        // A backslash continuation joins two lines into one.
        i = text.indexOf('\n', i) + 1 || to;
      } else {
        if (c === 40 || c === 91 || c === 123) this.brackets++;
        else if ((c === 41 || c === 93 || c === 125) && this.brackets > 0) this.brackets--;
        this.pushShared(i, charId(c, text[i]!));
        i++;
      }
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
    const { ids, kinds, starts, count } = this;
    const words = this.vocabulary.names;
    const word = (i: number) =>
      i < 0 || kinds[i] === newline ? undefined : kinds[i] === name ? words[ids[i]!] : sharedWords[ids[i]!];
    const anyReceiver = this.spec.family === 'go';
    for (let i = 0; i + 1 < count; i++) {
      if (kinds[i] !== name || word(i + 1) !== '(') continue;
      const previous = word(i - 1);
      if (previous !== undefined && declarationWords.has(previous)) continue;
      if (previous === '*' && word(i - 2) === 'function') continue;
      if (anyReceiver && previous === ')') continue;
      if (previous === '.' && !anyReceiver && !qualifiers.has(word(i - 2) ?? '')) continue;
      const callee = words[ids[i]!]!;
      const list = index.get(callee);
      if (list) list.push(starts[i]!);
      else index.set(callee, [starts[i]!]);
    }
    this.callIndex = index;
    return index;
  }

  /** Calls of `name` in (start, end): the positions are sorted, so two binary searches. */
  callsOf(callee: string, start: number, end: number): number {
    const positions = this.calls().get(callee);
    if (!positions) return 0;
    return firstAfter(positions, end - 1) - firstAfter(positions, start);
  }

  /** The hash of the block [start, end): two 32-bit polynomial hashes of the normalized tokens. */
  hash(start: number, end: number): string {
    const { starts, ids, kinds, count: tokens } = this;
    let low = 0;
    let high = tokens;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (starts[mid]! < start) low = mid + 1;
      else high = mid;
    }
    const { vocabulary } = this;
    const block = vocabulary.startBlock();
    const { seenIn, ordinal } = vocabulary;
    let names = 0;
    const baseIndent = start - (this.text.lastIndexOf('\n', start - 1) + 1);
    let h1 = 0x811c9dc5;
    let h2 = 0x01000193;
    let count = 0;
    let lastNewline = -1;
    let undoneH1 = h1;
    let undoneH2 = h2;
    for (let i = low; i < tokens && starts[i]! < end; i++) {
      const kind = kinds[i]!;
      let value: number;
      if (kind === newline) {
        // Consecutive line breaks (blank lines, dropped comments) count as one: keep the last.
        value = -1_000_000 - (ids[i]! - baseIndent);
        if (lastNewline === count) {
          h1 = undoneH1;
          h2 = undoneH2;
          count--;
        }
        lastNewline = count + 1;
      } else if (kind === name) {
        const id = ids[i]!;
        if (seenIn[id] !== block) {
          seenIn[id] = block;
          ordinal[id] = ++names;
        }
        value = -ordinal[id]!;
      } else value = sharedCodes[ids[i]!]!;
      undoneH1 = h1;
      undoneH2 = h2;
      h1 = Math.imul(h1 ^ value, 0x01000193) >>> 0;
      h2 = (Math.imul(h2, 31) + value + 0x9e3779b9) >>> 0;
      count++;
    }
    return `${h1.toString(36)}.${h2.toString(36)}.${count}`;
  }
}

/** Index of the first element greater than `value` in a sorted array. */
function firstAfter(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (sorted[mid]! <= value) low = mid + 1;
    else high = mid;
  }
  return low;
}
