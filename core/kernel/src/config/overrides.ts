import { parse } from 'yaml';
import type { ConfigIssue } from './config-error.js';
import { formatKeyPath, type KeyPath } from './yaml-file.js';

/** A parsed `--set key.path=value`; `line` is its 1-based position among the --set arguments. */
export interface Override {
  path: (string | number)[];
  value: unknown;
  line: number;
  /** 1-based column where the value starts in the argument. */
  valueColumn: number;
}

/** Issues about overrides name the file `--set`, each argument being one line of it. */
export const overrideFile = '--set';

/** An issue about a value a `--set` argument gave says so in words: its line is the argument. */
export function inSetArgument(issue: ConfigIssue): ConfigIssue {
  if (issue.file === overrideFile)
    issue.message += ` (the value of --set argument ${issue.line}, at its character ${issue.column})`;
  return issue;
}

/**
 * Parses `key.path=value` arguments (`a.b[1].c=...`; the value is YAML, so `5` is a number and
 * `[a, b]` a list). Returns the overrides and the issues of the bad ones.
 */
export function parseOverrides(args: readonly string[]): { overrides: Override[]; issues: ConfigIssue[] } {
  const overrides: Override[] = [];
  const issues: ConfigIssue[] = [];
  for (const [index, arg] of args.entries()) {
    const line = index + 1;
    const eq = arg.indexOf('=');
    const keyText = eq < 0 ? arg : arg.slice(0, eq);
    if (eq < 0) {
      issues.push({
        file: overrideFile,
        line,
        column: 1,
        key: keyText,
        message: `expected key=value, got '${arg}'`,
      });
      continue;
    }
    const path = parseKeyPath(keyText);
    if (!path) {
      issues.push({
        file: overrideFile,
        line,
        column: 1,
        key: keyText,
        message: `invalid key path '${keyText}' (write it like harness[1].options.model)`,
      });
      continue;
    }
    try {
      overrides.push({ path, value: parse(arg.slice(eq + 1)), line, valueColumn: eq + 2 });
    } catch (error) {
      issues.push({
        file: overrideFile,
        line,
        column: eq + 2,
        key: keyText,
        message: `the value is not valid YAML: ${(error as Error).message.split('\n')[0]}`,
      });
    }
  }
  return { overrides, issues };
}

/** `a.b[2].c` as a key path; undefined when the text is not one. */
export function parseKeyPath(text: string): (string | number)[] | undefined {
  if (!/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+|\[\d+\])*$/.test(text)) return undefined;
  return [...text.matchAll(/([A-Za-z0-9_$-]+)|\[(\d+)\]/g)].map((match) =>
    match[2] !== undefined ? Number(match[2]) : /^\d+$/.test(match[1]!) ? Number(match[1]) : match[1]!,
  );
}

/**
 * Applies overrides to a parsed experiment. Missing parents are created; a plugin given as a bare
 * id becomes `{ id }` when an override reaches into it (`--set harness.options.model=x`).
 */
export function applyOverrides(
  root: Record<string, unknown>,
  overrides: readonly Override[],
  isRef: (path: KeyPath) => boolean,
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const override of overrides) {
    let node: Record<string | number, unknown> = root;
    const { path } = override;
    for (const [depth, part] of path.entries()) {
      if (depth === path.length - 1) {
        node[part] = override.value;
        break;
      }
      let next = node[part];
      if (typeof next === 'string' && isRef(path.slice(0, depth + 1))) next = node[part] = { id: next };
      if (next === undefined || next === null)
        next = node[part] = typeof path[depth + 1] === 'number' ? [] : {};
      if (typeof next !== 'object' || (Array.isArray(next) && typeof path[depth + 1] !== 'number')) {
        issues.push({
          file: overrideFile,
          line: override.line,
          column: 1,
          key: formatKeyPath(path),
          message: `cannot set a key inside ${formatKeyPath(path.slice(0, depth + 1))}, which is ${Array.isArray(next) ? 'a list (use [n])' : JSON.stringify(next)}`,
        });
        break;
      }
      node = next as Record<string | number, unknown>;
    }
  }
  return issues;
}

/**
 * The override that set `path` or one of its parents (the last one wins, as when applied), or
 * that created `path` on its way to a deeper key (`existed` says whether the file had it).
 */
export function overrideFor(
  overrides: readonly Override[],
  path: KeyPath,
  existed: boolean,
): Override | undefined {
  const isPrefix = (short: KeyPath, long: KeyPath) =>
    short.length <= long.length && short.every((part, i) => part === long[i]);
  return overrides.findLast(
    (override) => isPrefix(override.path, path) || (!existed && isPrefix(path, override.path)),
  );
}
