import type { Git } from './git.js';

/** One commit of the first-parent history. */
export interface Commit {
  sha: string;
  /** Its first parent ('' for a root commit). */
  parent: string;
  date: string;
  message: string;
}

/** One file a commit changed against its first parent, from `git log --raw`. */
export interface ChangedFile {
  path: string;
  /** A (added), M (modified), D (deleted), T (type changed). */
  status: string;
  /** The file's mode after the commit ('000000' when deleted, '160000' for a submodule). */
  mode: string;
  /** Object ids before and after the commit (all zeros where the file is absent). */
  before: string;
  after: string;
}

/** Whether an object id is git's "no such file". */
export const absent = (id: string) => /^0+$/.test(id);

/** The branch's first-parent history, oldest first. */
export async function firstParentHistory(git: Git, branch: string): Promise<Commit[]> {
  const raw = await git.run(['log', '--first-parent', '--format=%H%x00%P%x00%cI%x00%B%x1e', branch]);
  return raw
    .split('\x1e')
    .map((record) => record.replace(/^\n/, ''))
    .filter((record) => record.trim() !== '')
    .map((record) => {
      const [sha = '', parents = '', date = '', message = ''] = record.split('\x00');
      return { sha, parent: parents.split(' ')[0] ?? '', date, message };
    })
    .reverse();
}

/**
 * The files each commit changed against its first parent, for every commit at once (one
 * `git log`, not a `git diff` per commit), in git's order (sorted by path).
 */
export async function changedFiles(git: Git, commits: string[]): Promise<Map<string, ChangedFile[]>> {
  const changes = new Map<string, ChangedFile[]>(commits.map((sha) => [sha, []]));
  if (commits.length === 0) return changes;
  const raw = await git.run(
    [
      'log',
      '--no-walk=unsorted',
      '--stdin',
      '--diff-merges=first-parent',
      '--raw',
      '-r',
      '-z',
      '--no-renames',
      '--no-abbrev',
      '--format=%x01%H',
    ],
    { input: `${commits.join('\n')}\n` },
  );
  for (const record of raw.split('\x01').slice(1)) {
    const fields = record.split('\0');
    const sha = fields[0] ?? '';
    const files = changes.get(sha);
    if (!files) continue;
    // After the header: `\n:<old mode> <new mode> <old id> <new id> <status>`, then the path.
    for (let i = 1; i + 1 < fields.length; i += 2) {
      const meta = fields[i]!.replace(/^\n/, '');
      if (!meta.startsWith(':')) break;
      const [, mode = '', before = '', after = '', status = ''] = meta.slice(1).split(' ');
      files.push({ path: fields[i + 1]!, status: status.slice(0, 1), mode, before, after });
    }
  }
  return changes;
}

/**
 * A patch of several files cut into one patch per file (`diff --git` sections, in order), keyed
 * by the paths given in that order; undefined when the sections do not match them one to one.
 * Each section is the text `git diff -- <path>` prints for that file alone.
 */
export function splitPatch(patch: string, paths: string[]): Map<string, string> | undefined {
  const starts: number[] = [];
  // A section starts at a line `diff --git `: hunk lines start with ' ', '+', '-' or '\', and
  // a binary patch's lines are base85, which has no space.
  for (let at = 0; at < patch.length; ) {
    if (patch.startsWith('diff --git ', at)) starts.push(at);
    const newline = patch.indexOf('\n', at);
    if (newline === -1) break;
    at = newline + 1;
  }
  if (starts.length !== paths.length) return undefined;
  const sections = new Map<string, string>();
  for (let i = 0; i < starts.length; i++) {
    const section = patch.slice(starts[i], starts[i + 1] ?? patch.length);
    const path = paths[i]!;
    // The header names the path (quoted when git quotes it): a cheap check of the pairing.
    const header = section.slice(0, section.indexOf('\n'));
    if (!header.includes(path) && !header.includes('"')) return undefined;
    sections.set(path, section);
  }
  return sections;
}
