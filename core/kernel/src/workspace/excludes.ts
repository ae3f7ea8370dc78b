import picomatch from 'picomatch';
import { z } from 'zod';

/** What environments leave out of snapshots unless told otherwise: installed packages, caches, git. */
export const defaultWorkspaceExcludes: readonly string[] = ['node_modules', '.venv', '__pycache__', '.git'];

/** The `excludes` option of an environment, as `excludeMatcher` reads it. */
export const excludesOption = z
  .array(z.string().min(1))
  .default([...defaultWorkspaceExcludes])
  .describe(
    'Names or globs (`*`, `?`, `[...]`, `{a,b}`, within one path segment) left out of snapshots, pulls and pushes. A name matches that file or directory anywhere in the workspace, with everything below it; a pattern with `/` matches a path from the workspace root.',
  );

/** Tests workspace-relative paths (with `/`) against exclude names and globs. */
export type ExcludeMatcher = (relativePath: string) => boolean;

const never = () => false;

/**
 * The matcher environments share, so a snapshot leaves out the same files whichever environment
 * took it. A pattern without `/` matches a file or directory of that name anywhere in the
 * workspace; one with `/` is anchored at the workspace root and covers everything below it.
 * Globs (`*`, `?`, `[...]`, `{a,b}`) stay within one path segment; dotfiles match.
 */
export function excludeMatcher(excludes: readonly string[]): ExcludeMatcher {
  const names = excludes.filter((e) => !e.includes('/'));
  const rooted = excludes
    .filter((e) => e.includes('/'))
    .map((e) => e.replace(/^\/+|\/+$/g, ''))
    .flatMap((e) => [e, `${e}/**`]);
  const options = { dot: true, nonegate: true };
  const name = names.length > 0 ? picomatch(names, options) : never;
  const anchored = rooted.length > 0 ? picomatch(rooted, options) : never;
  return (relativePath) => anchored(relativePath) || relativePath.split('/').some((segment) => name(segment));
}

/** Exclude patterns for a task's assets (`EnvironmentNeeds.assets`), each anchored at the workspace root. */
export function assetExcludes(needs: { assets?: readonly string[] }): string[] {
  return (needs.assets ?? []).map((asset) => `/${asset.replace(/^\/+|\/+$/g, '')}`);
}
