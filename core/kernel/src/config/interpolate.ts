import type { KeyPath } from './yaml-file.js';

export interface InterpolationIssue {
  path: (string | number)[];
  message: string;
}

const pattern = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\{([^}]*)\}?/g;

/**
 * Replaces `${VAR}` and `${VAR:-default}` in every string of `value` (in place) with the
 * environment's values; `$$` is a literal `$`. Keys listed in `skip` (top-level) are left as
 * written. Returns the variables that are missing or malformed, with where they are.
 */
export function interpolateEnv(
  value: Record<string, unknown>,
  env: Record<string, string | undefined>,
  skip: readonly string[] = [],
): InterpolationIssue[] {
  const issues: InterpolationIssue[] = [];
  const visit = (node: unknown, path: (string | number)[]): unknown => {
    if (typeof node === 'string') return substitute(node, env, path, issues);
    if (Array.isArray(node)) {
      node.forEach((item, index) => {
        node[index] = visit(item, [...path, index]);
      });
    } else if (node && typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) {
        if (path.length === 0 && skip.includes(key)) continue;
        (node as Record<string, unknown>)[key] = visit(item, [...path, key]);
      }
    }
    return node;
  };
  visit(value, []);
  return issues;
}

function substitute(
  text: string,
  env: Record<string, string | undefined>,
  path: KeyPath,
  issues: InterpolationIssue[],
): string {
  if (!text.includes('$')) return text;
  return text.replace(pattern, (match, name: string | undefined, fallback: string | undefined) => {
    if (match === '$$') return '$';
    if (name === undefined) {
      issues.push({
        path: [...path],
        message: `malformed variable reference '${match}' (write \${NAME} or \${NAME:-default}; $$ for a literal $)`,
      });
      return match;
    }
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    if (found === '') return '';
    issues.push({
      path: [...path],
      message: `environment variable ${name} is not set (set it, or write \${${name}:-default})`,
    });
    return match;
  });
}
