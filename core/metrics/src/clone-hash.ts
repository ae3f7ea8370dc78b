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

/**
 * The normalized form of a block: identifiers become $VAR1..n in order of first appearance,
 * literals $STR/$INT/$FLOAT/$BOOL/$NONE, comments and docstrings are dropped; keywords and
 * punctuation stay. For indentation-sensitive Python, each line's indent relative to the block's
 * first line is kept. `spans` are sorted by start and do not overlap.
 */
export function normalizeBlock(
  text: string,
  start: number,
  end: number,
  spans: readonly LexicalSpan[],
  firstSpan: number,
  spec: LanguageSpec,
): string {
  const out: string[] = [];
  const names = new Map<string, string>();
  const indentSensitive = spec.family === 'python';
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const baseIndent = start - lineStart;
  let position = start;
  let s = firstSpan;
  while (position < end) {
    const span = s < spans.length ? spans[s] : undefined;
    const gapEnd = span && span.start < end ? span.start : end;
    if (gapEnd > position) tokenize(text.slice(position, gapEnd));
    if (!span || span.start >= end) break;
    if (span.replacement) out.push(span.replacement);
    position = span.end;
    s++;
  }
  return createHash('md5').update(out.join(' ')).digest('base64');

  function tokenize(chunk: string): void {
    token.lastIndex = 0;
    for (let m = token.exec(chunk); m; m = token.exec(chunk)) {
      const [whole, word, number, newline] = m;
      if (word !== undefined) {
        if (spec.keywords.has(word)) out.push(word);
        else if (Object.hasOwn(spec.literalWords, word)) out.push(spec.literalWords[word]!);
        else {
          let name = names.get(word);
          if (!name) {
            name = `$VAR${names.size + 1}`;
            names.set(word, name);
          }
          out.push(name);
        }
      } else if (number !== undefined) {
        out.push(
          /^0[xXoObB]/.test(number) || !/[.eE]/.test(number) || /[nlL]$/.test(number) ? '$INT' : '$FLOAT',
        );
      } else if (newline !== undefined) {
        if (!indentSensitive) continue;
        const marker = `\n${newline.length - 1 - newline.lastIndexOf('\n') - baseIndent}`;
        if (out.length && out[out.length - 1]!.startsWith('\n')) out[out.length - 1] = marker;
        else out.push(marker);
      } else out.push(whole);
    }
  }
}
