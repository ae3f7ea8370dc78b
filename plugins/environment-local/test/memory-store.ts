import { createHash } from 'node:crypto';
import type { SnapshotStore, WorkspaceFile } from '@longhaul/core';

/** A content-addressed store kept in memory, standing in for the run's store. */
export class MemorySnapshotStore implements SnapshotStore {
  private readonly snapshots = new Map<string, WorkspaceFile[]>();

  async put(files: WorkspaceFile[]): Promise<string> {
    const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : 1));
    const hash = createHash('sha256');
    for (const f of sorted) hash.update(`${f.path}\0${f.mode}\0`).update(f.data).update('\0');
    const ref = hash.digest('hex');
    this.snapshots.set(ref, sorted);
    return ref;
  }

  async get(ref: string): Promise<WorkspaceFile[]> {
    const files = this.snapshots.get(ref);
    if (!files) throw new Error(`no snapshot ${ref}`);
    return files;
  }

  async has(ref: string): Promise<boolean> {
    return this.snapshots.has(ref);
  }
}
