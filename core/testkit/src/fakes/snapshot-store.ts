import { manifestOf, type SnapshotRef, type SnapshotStore, sha256, type WorkspaceFile } from '@longhaul/core';

/** Snapshots in memory, with the same refs a run directory's BlobSnapshotStore gives. */
export class FakeSnapshotStore implements SnapshotStore {
  private readonly snapshots = new Map<SnapshotRef, WorkspaceFile[]>();

  async put(files: WorkspaceFile[]): Promise<SnapshotRef> {
    const ref = sha256(manifestOf(files).text);
    this.snapshots.set(
      ref,
      files.map((file) => ({ path: file.path, mode: file.mode, data: new Uint8Array(file.data) })),
    );
    return ref;
  }

  async get(ref: SnapshotRef): Promise<WorkspaceFile[]> {
    const files = this.snapshots.get(ref);
    if (!files) throw new Error(`no snapshot ${ref}`);
    return files.map((file) => ({ path: file.path, mode: file.mode, data: new Uint8Array(file.data) }));
  }

  async has(ref: SnapshotRef): Promise<boolean> {
    return this.snapshots.has(ref);
  }

  get size(): number {
    return this.snapshots.size;
  }
}
