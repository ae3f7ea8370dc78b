import { open, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { ConfigIssue } from '@longhaul/core';
import { codeOnly, position } from './python-code.js';

/** A path a test file builds from its own location, relative to the tests directory. */
export interface Reference {
  path: string;
  line: number;
  column: number;
}

const quoted = String.raw`(?:"[^"\n{}]+"|'[^'\n{}]+')`;
/** `Path(__file__).parent` (resolved or absolute first), climbing `.parent` more times. */
const here = String.raw`Path\(\s*__file__\s*\)(?:\.(?:resolve|absolute)\(\))?\.parent(?<up>(?:\.parent)*)`;
/** `/ "data" / "cases.json"` or `.joinpath("data", "cases.json")`. */
const segments = String.raw`(?<segments>(?:\s*/\s*${quoted})+|\.joinpath\(\s*${quoted}(?:\s*,\s*${quoted})*\s*\))`;
const osHere = String.raw`os\.path\.dirname\(\s*(?:os\.path\.(?:abspath|realpath)\(\s*)?__file__\s*\)?\s*\)`;
/** `os.path.join(os.path.dirname(__file__), "data", "cases.json")`. */
const osJoin = new RegExp(
  String.raw`os\.path\.join\(\s*(?<base>${osHere}|[A-Za-z_]\w*)\s*(?<segments>(?:,\s*${quoted})+)\s*\)`,
  'g',
);
const fromFile = new RegExp(here + segments, 'g');
/** `NAME = <path>` at the start of a line: the name is joined with more segments later. */
const binding = new RegExp(
  String.raw`^(?<name>[A-Za-z_]\w*)\s*(?::[^=\n]+)?=\s*(?:(?<here>${here})|(?<os>${osHere})|(?<other>[A-Za-z_]\w*))(?<rest>${segments})?\s*$`,
  'gm',
);

function parts(text: string): string[] {
  return [...text.matchAll(/"([^"\n]+)"|'([^'\n]+)'/g)].map((match) => (match[1] ?? match[2])!);
}

function join2(base: string, more: readonly string[]): string {
  return [...(base === '' ? [] : [base]), ...more].join('/');
}

/**
 * The files and directories a test source reads relative to its own location: built from
 * `Path(__file__).parent` with `/` or `.joinpath`, or from `os.path.dirname(__file__)` with
 * `os.path.join`, directly or through module-level names bound to such a path (`DATA = HERE /
 * "data"`, then `DATA / "cases.json"`). Paths that climb above the problem directory are ignored,
 * as is text inside strings and comments.
 */
export function referencedPaths(source: string): Reference[] {
  const code = codeOnly(source);
  const found = new Map<string, Reference>();
  const add = (path: string, offset: number) => {
    if (path === '' || code[offset] === ' ') return;
    const reference = { path, ...position(source, offset) };
    const key = `${reference.line}\0${path}`;
    if (!found.has(key)) found.set(key, reference);
  };
  const climb = (up: string | undefined): string | undefined => {
    const climbs = (up ?? '').split('.parent').length - 1;
    return climbs === 0 ? '' : climbs === 1 ? '..' : undefined;
  };
  // Module-level names, in order, each from `Path(__file__)…`, `os.path.dirname(__file__)` or a known name.
  const names = new Map<string, string>();
  for (const match of source.matchAll(binding)) {
    const groups = match.groups!;
    const base =
      groups.here !== undefined ? climb(groups.up) : groups.os !== undefined ? '' : names.get(groups.other!);
    if (base === undefined) continue;
    const path = join2(base, parts(groups.rest ?? ''));
    names.set(groups.name!, path);
    add(path, match.index);
  }
  for (const match of source.matchAll(fromFile)) {
    const base = climb(match.groups!.up);
    if (base !== undefined) add(join2(base, parts(match.groups!.segments!)), match.index);
  }
  for (const match of source.matchAll(osJoin)) {
    const baseText = match.groups!.base!;
    const base = baseText.startsWith('os.path') ? '' : names.get(baseText);
    if (base !== undefined) add(join2(base, parts(match.groups!.segments!)), match.index);
  }
  for (const [name, path] of names) {
    for (const match of source.matchAll(new RegExp(String.raw`\b${name}${segments}`, 'g')))
      add(join2(path, parts(match.groups!.segments!)), match.index);
  }
  return [...found.values()].sort((a, b) => a.line - b.line || a.column - b.column);
}

/**
 * Whether the tests make the path themselves (`OUT.mkdir(…)`, `os.makedirs(OUT…)` on a name bound
 * to it, or on the path expression itself), so it is no data file the checkout must hold.
 */
function madeByTests(source: string, reference: Reference): boolean {
  const lines = source.split('\n');
  const line = lines[reference.line - 1] ?? '';
  const bound = /^([A-Za-z_]\w*)\s*(?::[^=\n]+)?=/.exec(line)?.[1];
  if (/\.mkdir\(|os\.makedirs\(/.test(line) && !bound) return true;
  if (bound === undefined) return false;
  return new RegExp(String.raw`\b${bound}\.mkdir\(|os\.makedirs\(\s*${bound}\b`).test(codeOnly(source));
}

/**
 * Whether the reference sits in a pytest fixture that no test file asks for: pytest never runs it,
 * so the path it builds is never read.
 */
function inUnusedFixture(source: string, reference: Reference, allSources: readonly string[]): boolean {
  const lines = codeOnly(source).split('\n');
  const indent = (text: string) => /^\s*/.exec(text)![0].length;
  let level = indent(lines[reference.line - 1] ?? '');
  for (let index = reference.line - 2; index >= 0; index--) {
    const text = lines[index]!;
    if (text.trim() === '' || indent(text) >= level) continue;
    level = indent(text);
    const def = /^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/.exec(text);
    if (!def) {
      if (level === 0) return false;
      continue;
    }
    const decorators = source.split('\n').slice(Math.max(0, index - 5), index);
    const isFixture = decorators.some((above) => /^\s*@\s*(?:pytest\.)?fixture\b/.test(above));
    if (!isFixture || decorators.some((above) => /autouse\s*=\s*True/.test(above))) return false;
    // Every mention counts, strings too (`usefixtures("name")`): only a name never mentioned again is unused.
    const name = def[1]!;
    const uses = allSources
      .map((text) => text.match(new RegExp(String.raw`\b${name}\b`, 'g'))?.length ?? 0)
      .reduce((sum, count) => sum + count, 0);
    return uses <= 1;
  }
  return false;
}

const lfsPointer = 'version https://git-lfs.github.com/spec/v1';

/** The first bytes of a file, enough to tell a Git LFS pointer. */
async function head(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(lfsPointer.length);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Every file under `path` (itself when it is a file). */
async function filesUnder(path: string): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) return [];
  if (!info.isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

const pointerMessage = (path: string) =>
  `${path} is a Git LFS pointer, not its data (run \`git lfs pull\` in the benchmark's checkout)`;

/**
 * Issues for the data the tests read that the problem directory does not hold, each at the line
 * that names it: a file or directory that is not there, a file that is empty, and any Git LFS
 * pointer (whose content was never fetched) under `tests/` or a static asset. `tests/assets` is
 * the folder upstream's runner fills with the static assets, so `assets/<name>` is checked against
 * the config, unless the problem's `tests/` holds it itself; paths the tests make themselves and
 * paths built only in a fixture no test uses are no data files.
 */
export async function dataFileIssues(
  testsDir: string,
  files: readonly { path: string; source: string }[],
  assetNames: ReadonlySet<string>,
  assetPaths: readonly string[] = [],
): Promise<ConfigIssue[]> {
  const issues: ConfigIssue[] = [];
  const missing = new Map<string, ConfigIssue>();
  const reported = new Set<string>();
  const seen = new Set<string>();
  const sources = files.map((file) => file.source);
  for (const file of files) {
    for (const reference of referencedPaths(file.source)) {
      const where = { file: file.path, line: reference.line, column: reference.column };
      const full = join(testsDir, reference.path);
      const [first, second] = reference.path.split('/');
      if (first === 'assets' && second === undefined) continue;
      if (madeByTests(file.source, reference) || inUnusedFixture(file.source, reference, sources)) continue;
      const info = await stat(full).catch(() => undefined);
      if (first === 'assets' && second !== undefined && info === undefined) {
        if (!assetNames.has(second))
          issues.push({
            ...where,
            message: `the tests read tests/${reference.path}, but config.yaml has no static asset '${second}' and tests/ holds no ${reference.path}`,
          });
        continue;
      }
      if (seen.has(full)) continue;
      seen.add(full);
      if (info === undefined) {
        missing.set(full, {
          ...where,
          message: `the tests read ${full}, which is not there (a data file missing from the problem)`,
        });
      } else if (info.isFile() && info.size === 0) {
        reported.add(full);
        issues.push({ ...where, message: `the tests read ${full}, which is empty` });
      } else if (info.isFile() && (await head(full)) === lfsPointer) {
        reported.add(full);
        issues.push({ ...where, message: pointerMessage(full) });
      }
    }
  }
  // A missing directory is named through the deepest missing path under it.
  const paths = [...missing.keys()];
  for (const [path, issue] of missing)
    if (!paths.some((other) => other.startsWith(`${path}/`))) issues.push(issue);
  // Pointers anywhere in the tests or the assets, however the tests reach them.
  for (const root of [testsDir, ...assetPaths])
    for (const path of await filesUnder(root)) {
      if (reported.has(path) || relative(testsDir, path).split('/').includes('__pycache__')) continue;
      const info = await stat(path);
      if (info.size < 1024 && (await head(path)) === lfsPointer) {
        reported.add(path);
        issues.push({ file: path, message: pointerMessage(path) });
      }
    }
  return issues;
}
