import { diffArrays } from 'diff';
import type { SourceFile } from './discovery.js';

export interface Churn {
  /** Non-blank lines added and removed across source files. */
  added: number;
  removed: number;
}

function codeLinesOf(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '');
}

/** Lines added and removed going from `previous` to `current` (non-blank lines, line diff per file). */
export function churnBetween(previous: readonly SourceFile[], current: readonly SourceFile[]): Churn {
  const before = new Map(previous.map((file) => [file.path, file.text]));
  let added = 0;
  let removed = 0;
  for (const file of current) {
    const old = before.get(file.path);
    before.delete(file.path);
    if (old === file.text) continue;
    if (old === undefined) {
      added += codeLinesOf(file.text).length;
      continue;
    }
    for (const part of diffArrays(codeLinesOf(old), codeLinesOf(file.text))) {
      if (part.added) added += part.count ?? part.value.length;
      else if (part.removed) removed += part.count ?? part.value.length;
    }
  }
  for (const text of before.values()) removed += codeLinesOf(text).length;
  return { added, removed };
}
