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
  /** Receives each variable substituted, with its value. */
  used: Map<string, string> = new Map(),
): InterpolationIssue[] {
  const issues: InterpolationIssue[] = [];
  const visit = (node: unknown, path: (string | number)[]): unknown => {
    if (typeof node === 'string') return substitute(node, env, path, issues, used);
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
  used: Map<string, string>,
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
    if (found !== undefined && found !== '') {
      used.set(name, found);
      return found;
    }
    if (fallback !== undefined) return fallback;
    if (found === '') return '';
    issues.push({
      path: [...path],
      message: `environment variable ${name} is not set (set it, or write \${${name}:-default})`,
    });
    return match;
  });
}

/** Variable names that by convention hold credentials. */
const secretName = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH/i;

/**
 * Puts `${NAME}` back in place of the values of secret-looking variables (see `secretName`) in
 * an already `$$`-escaped value, so that text meant for storage never holds a credential.
 */
export function maskSecrets(value: unknown, used: ReadonlyMap<string, string>): unknown {
  const secrets = [...used].filter(([name, found]) => secretName.test(name) && found.length > 0);
  if (secrets.length === 0) return value;
  const mask = (node: unknown): unknown => {
    if (typeof node === 'string') {
      return secrets.reduce(
        (text, [name, found]) => text.split(found.replace(/\$/g, '$$$$')).join(`\${${name}}`),
        node,
      );
    }
    if (Array.isArray(node)) return node.map(mask);
    if (node && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, mask(item)]));
    }
    return node;
  };
  return mask(value);
}
