import type { WorkspaceFile } from '@longhaul/core';

export interface WorkspaceChanges {
  written: WorkspaceFile[];
  deleted: string[];
}

function sameFile(a: WorkspaceFile, b: WorkspaceFile): boolean {
  return a.mode === b.mode && Buffer.from(a.data).equals(Buffer.from(b.data));
}

/** What turning `current` into `wanted` writes and deletes, each sorted by path. */
export function workspaceChanges(
  current: readonly WorkspaceFile[],
  wanted: readonly WorkspaceFile[],
): WorkspaceChanges {
  const before = new Map(current.map((file) => [file.path, file]));
  const after = new Set(wanted.map((file) => file.path));
  const byPath = (a: { path: string }, b: { path: string }) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
  return {
    written: wanted
      .filter((file) => !(before.has(file.path) && sameFile(before.get(file.path)!, file)))
      .sort(byPath),
    deleted: current
      .filter((file) => !after.has(file.path))
      .map((file) => file.path)
      .sort(),
  };
}
