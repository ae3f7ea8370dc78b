import { posix } from 'node:path';
import type { FileEntry, Sandbox } from '../contracts/sandbox.js';
import { excludeMatcher } from '../workspace/excludes.js';

/** What a case does to the workspace before it runs (CLI and HTTP cases alike). */
export interface CaseWorkspace {
  /** Input files, written over whatever the workspace holds at their paths. */
  files?: Record<string, string>;
  /** Paths the case owns (see `removeSchema`): removed first. */
  remove?: readonly string[];
  /** Output files the case expects after its run: removed first, so only the program's own count. */
  expect?: { files?: Record<string, unknown> };
}

/** The entries of `entries` whose folder is not among them: removing these removes them all. */
function topmost(paths: string[]): string[] {
  const set = new Set(paths);
  return paths.filter((path) => {
    for (let dir = posix.dirname(path); dir !== '.'; dir = posix.dirname(dir)) if (set.has(dir)) return false;
    return true;
  });
}

/**
 * Writes `data` at `path`, first clearing what the agent may have left in the way: a folder or a
 * link where the file goes, a file or a link where one of its folders goes. A case's input path
 * belongs to the case; an obstacle there must fail the program, not the judge.
 */
async function placeFile(sandbox: Sandbox, path: string, data: string): Promise<void> {
  try {
    await sandbox.writeFile(path, data);
    return;
  } catch {
    const parts = path.split('/');
    for (let length = 1; length <= parts.length; length++) {
      const prefix = parts.slice(0, length).join('/');
      const parent = posix.dirname(prefix);
      const entry = (await sandbox.list(parent === '.' ? '.' : parent).catch(() => [])).find(
        (candidate) => candidate.path === prefix,
      );
      if (!entry) break;
      if (length === parts.length || entry.type !== 'dir') {
        await sandbox.remove(prefix);
        break;
      }
    }
  }
  await sandbox.writeFile(path, data);
}

/**
 * Makes a scorer's copy of the workspace ready for one case: removes what the case owns
 * (`remove`) and the output files it expects unless they are inputs (a program that writes none
 * must not pass on files the agent left there), then writes the case's input files. `entries` is
 * the workspace as listed before (recursive); it is listed here when not given.
 */
export async function prepareCaseWorkspace(
  sandbox: Sandbox,
  spec: CaseWorkspace,
  entries?: readonly FileEntry[],
): Promise<void> {
  const inputs = new Set(Object.keys(spec.files ?? {}));
  const expected = Object.keys(spec.expect?.files ?? {}).filter((path) => !inputs.has(path));
  if (spec.remove?.length || expected.length > 0) {
    const owned = excludeMatcher(spec.remove ?? []);
    const outputs = new Set(expected);
    const listed = entries ?? (await sandbox.list('.', { recursive: true }));
    const doomed = listed.map((entry) => entry.path).filter((path) => owned(path) || outputs.has(path));
    for (const path of topmost(doomed.sort())) await sandbox.remove(path);
  }
  for (const [path, text] of Object.entries(spec.files ?? {})) await placeFile(sandbox, path, text);
}
