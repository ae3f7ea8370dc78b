import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/**
 * The root of the npm workspace that would take `dir` as a member: the nearest folder above it
 * whose package.json lists `workspaces` with a pattern matching `dir` (`plugins/*` or an exact
 * path). Undefined when `dir` would be a package of its own.
 */
export function workspaceRootFor(dir: string): string | undefined {
  for (let root = dirname(dir); ; root = dirname(root)) {
    const manifest = join(root, 'package.json');
    if (existsSync(manifest)) {
      const { workspaces } = JSON.parse(readFileSync(manifest, 'utf8')) as { workspaces?: unknown };
      const patterns = Array.isArray(workspaces) ? workspaces.filter((p) => typeof p === 'string') : [];
      const path = relative(root, dir).split(sep).join('/');
      if (patterns.some((pattern) => matches(pattern, path))) return root;
      // A package.json without a matching pattern ends the search: npm would not look further up.
      return undefined;
    }
    if (dirname(root) === root) return undefined;
  }
}

function matches(pattern: string, path: string): boolean {
  const clean = pattern.replace(/^\.\//, '').replace(/\/$/, '');
  if (clean.endsWith('/*')) return dirname(path) === clean.slice(0, -2);
  return clean === path;
}
