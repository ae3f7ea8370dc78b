const directive = /(?:slop-ignore|scbc ignore)(-file)?(?:\[([^\]]*)\])?/;

/** Rule ids suppressed on a line; `*` suppresses every rule. */
export type Suppressions = Map<number, Set<string>>;

export interface SuppressionComment {
  text: string;
  /** Zero-based line of the comment. */
  line: number;
}

/**
 * Reads `slop-ignore[rule-a, rule-b]` (or bare `slop-ignore`) comments. A comment after code
 * applies to its own line; a comment alone on its line applies to the next code line.
 * `slop-ignore-file[...]` applies to the whole file (key -1). `scbc ignore[...]` (the reference
 * tool's spelling) is read the same way.
 */
export function readSuppressions(comments: SuppressionComment[], codeLines: Uint8Array): Suppressions {
  const result: Suppressions = new Map();
  for (const comment of comments) {
    const match = directive.exec(comment.text);
    if (!match) continue;
    const ids = match[2]
      ?.split(',')
      .map((id) => id.trim())
      .filter(Boolean) ?? ['*'];
    let line = -1;
    if (!match[1]) {
      line = comment.line;
      while (line < codeLines.length && !codeLines[line]) line++;
    }
    const set = result.get(line) ?? new Set<string>();
    for (const id of ids.length ? ids : ['*']) set.add(id);
    result.set(line, set);
  }
  return result;
}

export function isSuppressed(suppressions: Suppressions, line: number, ruleId: string): boolean {
  for (const key of [line, -1]) {
    const set = suppressions.get(key);
    if (set && (set.has('*') || set.has(ruleId))) return true;
  }
  return false;
}
