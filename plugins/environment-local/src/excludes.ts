/** Tests workspace-relative paths (with `/`) against exclude names and globs. */
export type ExcludeMatcher = (relativePath: string) => boolean;

function segmentPattern(glob: string): RegExp {
  const source = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]*');
  return new RegExp(`^${source}$`);
}

export function excludeMatcher(excludes: readonly string[]): ExcludeMatcher {
  // A pattern without `/` may match any segment; one with `/` is anchored at the workspace root
  // and matches that path and everything below it.
  const anywhere = excludes.filter((e) => !e.includes('/')).map(segmentPattern);
  const anchored = excludes
    .filter((e) => e.includes('/'))
    .map((e) =>
      e
        .replace(/^\/+|\/+$/g, '')
        .split('/')
        .map(segmentPattern),
    );
  return (relativePath) => {
    const segments = relativePath.split('/');
    if (segments.some((s) => anywhere.some((re) => re.test(s)))) return true;
    return anchored.some(
      (parts) => parts.length <= segments.length && parts.every((re, i) => re.test(segments[i] ?? '')),
    );
  };
}
