import { resolve } from 'node:path';

export interface PackageJson {
  name?: string;
  version?: string;
  description?: string;
  main?: string;
  exports?: unknown;
  longhaul?: unknown;
}

/**
 * The file `import(<package>)` (or `import(<package>/<subpath>)`) would load, picked from package.json's "exports" with the given
 * conditions (first matching key in the package's order wins, as Node does), falling back to "main".
 * Resolved by hand because Node cannot resolve a bare name relative to another directory, or with
 * extra conditions, without flags.
 */
export function packageEntry(
  dir: string,
  pkg: PackageJson,
  conditions: readonly string[],
  subpath = '.',
): string {
  let root = pkg.exports;
  if (root && typeof root === 'object' && !Array.isArray(root)) {
    const entries = root as Record<string, unknown>;
    if (Object.keys(entries).some((key) => key.startsWith('.'))) root = entries[subpath];
    else if (subpath !== '.') root = undefined;
  } else if (subpath !== '.') root = undefined;
  const target = root === undefined ? undefined : pick(root, conditions);
  if (subpath !== '.') return resolve(dir, target ?? subpath);
  return resolve(dir, target ?? pkg.main ?? 'index.js');
}

function pick(target: unknown, conditions: readonly string[]): string | undefined {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) {
    for (const item of target) {
      const found = pick(item, conditions);
      if (found) return found;
    }
    return undefined;
  }
  if (target && typeof target === 'object') {
    for (const [key, value] of Object.entries(target)) {
      if (!conditions.includes(key)) continue;
      const found = pick(value, conditions);
      if (found) return found;
    }
  }
  return undefined;
}
