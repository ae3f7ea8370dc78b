import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { regularFiles, type WorkspaceFile } from '@longhaul/core';
import picomatch from 'picomatch';

/**
 * The machinery of judgment in a SWE-STEPS repository, as the PR's gold tree holds it: every test
 * file by the dataset's rules and every conftest.py (the repository's own conftest is legitimate,
 * the agent's edits to it are not). SWE-bench puts the test files back before it runs; so does the
 * scorer, for all of them, and removes the test files and startup files (`sitecustomize.py`,
 * `usercustomize.py`, `*.pth`) the gold tree does not have.
 */
export interface GoldMachinery {
  /** Whether a path is test machinery (a test file by the rules, or a conftest.py). */
  matches(path: string): boolean;
  /** Path → content of every such file of the gold tree. */
  files: Map<string, Buffer>;
}

const conftest = (path: string) => posix.basename(path) === 'conftest.py';

/** Files a Python process imports or reads at startup from any folder on its path. */
export const isStartupFile = (path: string) =>
  /^(sitecustomize|usercustomize)\.py$|\.pth$/.test(posix.basename(path));

/** Gold trees read once per process: every PR of every trial of a run judges against the same few. */
const read = new Map<string, Promise<GoldMachinery>>();

export function goldMachinery(gold: string, rules: readonly string[]): Promise<GoldMachinery> {
  const key = `${gold}\0${rules.join('\0')}`;
  let machinery = read.get(key);
  if (!machinery) {
    machinery = (async () => {
      const test = rules.length > 0 ? picomatch([...rules], { dot: true }) : () => false;
      const matches = (path: string) => conftest(path) || test(path);
      const files = new Map<string, Buffer>();
      for (const path of await regularFiles(gold))
        if (matches(path)) files.set(path, await readFile(join(gold, path)));
      return { matches, files };
    })();
    read.set(key, machinery);
    machinery.catch(() => read.delete(key));
  }
  return machinery;
}

const symlinkType = 0o170000;
const isLink = (file: WorkspaceFile) => (file.mode & symlinkType) === 0o120000;

/** What to do to the agent's tree so that its machinery is the gold tree's. */
export interface MachineryEdits {
  /** Paths to remove: the agent's test files and startup files the gold tree does not have, links in the way. */
  remove: string[];
  /** Gold files to write where the agent's differ or are missing. */
  write: [path: string, data: Buffer][];
}

export function machineryEdits(agent: readonly WorkspaceFile[], gold: GoldMachinery): MachineryEdits {
  const byPath = new Map(agent.map((file) => [file.path, file]));
  const folders = new Set(agent.flatMap((file) => prefixes(file.path)));
  const remove = new Set(
    agent
      .filter((file) => !gold.files.has(file.path) && (gold.matches(file.path) || isStartupFile(file.path)))
      .map((file) => file.path),
  );
  const write: [string, Buffer][] = [];
  for (const [path, data] of gold.files) {
    const mine = byPath.get(path);
    // In the way: a link or a folder where the file goes, a file or a link where one of its folders goes.
    if ((mine && isLink(mine)) || folders.has(path)) remove.add(path);
    for (const folder of prefixes(path)) if (byPath.has(folder)) remove.add(folder);
    if (!mine || isLink(mine) || !data.equals(mine.data)) write.push([path, data]);
  }
  return { remove: [...remove].sort(), write };
}

/** The folders above a path: `a/b/c` → `a`, `a/b`. */
function prefixes(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(1).map((_, index) => parts.slice(0, index + 1).join('/'));
}
