import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigIssue } from '@longhaul/core';

/** A path a test file builds from its own location, relative to the tests directory. */
interface Reference {
  path: string;
  line: number;
  column: number;
}

const here = String.raw`Path\(\s*__file__\s*\)(?:\.resolve\(\))?\.parent(?<up>(?:\.parent)*)`;
const segments = String.raw`(?<segments>(?:\s*/\s*(?<quote>["'])[^"'\n{}]+\k<quote>)+)`;
/** `NAME = Path(__file__).parent / "data"`: a directory later joined with more segments. */
const base = new RegExp(
  String.raw`^(?<name>[A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=\n]+)?=\s*${here}${segments}`,
  'gm',
);
const fromFile = new RegExp(here + segments, 'g');

function parts(text: string): string[] {
  return [...text.matchAll(/(["'])([^"'\n]+)\1/g)].map((match) => match[2]!);
}

function position(source: string, offset: number): { line: number; column: number } {
  const before = source.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

/**
 * The files and directories a test source reads through `Path(__file__).parent / "data" / …`,
 * directly or through a module-level name bound to such a path (`DATA = … / "data"`, then
 * `DATA / "cases.json"`). Paths that climb above the problem directory are ignored.
 */
export function referencedPaths(source: string): Reference[] {
  const found = new Map<string, Reference>();
  const names = new Map<string, string>();
  const add = (path: string, offset: number) => {
    const reference = { path, ...position(source, offset) };
    const key = `${reference.line}\0${path}`;
    if (!found.has(key)) found.set(key, reference);
  };
  const fromHere = (match: RegExpMatchArray): string | undefined => {
    const climbs = match.groups!.up!.split('.parent').length - 1;
    if (climbs > 1) return undefined;
    const path = [...(climbs === 1 ? ['..'] : []), ...parts(match.groups!.segments!)].join('/');
    add(path, match.index!);
    return path;
  };
  for (const match of source.matchAll(base)) {
    const path = fromHere(match);
    if (path !== undefined) names.set(match.groups!.name!, path);
  }
  for (const match of source.matchAll(fromFile)) fromHere(match);
  for (const [name, path] of names) {
    for (const match of source.matchAll(new RegExp(String.raw`\b${name}${segments}`, 'g')))
      add([path, ...parts(match.groups!.segments!)].join('/'), match.index);
  }
  return [...found.values()];
}

const lfsPointer = 'version https://git-lfs.github.com/spec/v1';

/**
 * Issues for the data files the tests read that the problem directory does not hold, each at the
 * line that names it: missing, or a Git LFS pointer whose content was never fetched. `assets/<name>`
 * is where the scorer puts static asset `<name>`, so it is checked against the config instead.
 */
export async function dataFileIssues(
  testsDir: string,
  files: readonly { path: string; source: string }[],
  assetNames: ReadonlySet<string>,
): Promise<ConfigIssue[]> {
  const issues: ConfigIssue[] = [];
  const missing = new Map<string, ConfigIssue>();
  const seen = new Set<string>();
  for (const file of files) {
    for (const reference of referencedPaths(file.source)) {
      const where = { file: file.path, line: reference.line, column: reference.column };
      const [first, second] = reference.path.split('/');
      if (first === 'assets' && second !== undefined) {
        if (!assetNames.has(second))
          issues.push({
            ...where,
            message: `the tests read tests/${reference.path}, but config.yaml has no static asset '${second}'`,
          });
        continue;
      }
      const full = join(testsDir, reference.path);
      if (seen.has(full)) continue;
      seen.add(full);
      const info = await stat(full).catch(() => undefined);
      if (info === undefined) {
        missing.set(full, {
          ...where,
          message: `the tests read ${full}, which is not there (a data file missing from the problem)`,
        });
      } else if (info.isFile() && info.size < 1024) {
        const head = await readFile(full, 'utf8').catch(() => '');
        if (head.startsWith(lfsPointer))
          issues.push({
            ...where,
            message: `${full} is a Git LFS pointer, not its data (run \`git lfs pull\` in the benchmark's checkout)`,
          });
      }
    }
  }
  // A missing directory is named through the deepest missing path under it.
  const paths = [...missing.keys()];
  for (const [path, issue] of missing)
    if (!paths.some((other) => other.startsWith(`${path}/`))) issues.push(issue);
  return issues;
}
