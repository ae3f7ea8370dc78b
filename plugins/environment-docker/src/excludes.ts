import picomatch from 'picomatch';

/** Tests workspace-relative paths (with `/`) against exclude names and globs. */
export type ExcludeMatcher = (relativePath: string) => boolean;

const never = () => false;

/**
 * A pattern without `/` matches a file or directory of that name anywhere in the workspace; one
 * with `/` is anchored at the workspace root and covers everything below it.
 */
export function excludeMatcher(excludes: readonly string[]): ExcludeMatcher {
  const names = excludes.filter((e) => !e.includes('/'));
  const rooted = excludes
    .filter((e) => e.includes('/'))
    .map((e) => e.replace(/^\/+|\/+$/g, ''))
    .flatMap((e) => [e, `${e}/**`]);
  const name = names.length > 0 ? picomatch(names, { dot: true }) : never;
  const anchored = rooted.length > 0 ? picomatch(rooted, { dot: true }) : never;
  return (relativePath) => anchored(relativePath) || relativePath.split('/').some((segment) => name(segment));
}
