import {
  manifestOf,
  type SkippedFile,
  type SnapshotRef,
  type SnapshotStore,
  sha256,
  type WorkspaceFile,
} from '@longhaul/core';

/** Snapshots in memory, with the same refs a run directory's BlobSnapshotStore gives. */
export class FakeSnapshotStore implements SnapshotStore {
  private readonly snapshots = new Map<SnapshotRef, WorkspaceFile[]>();
  private readonly left = new Map<SnapshotRef, SkippedFile[]>();

  async put(files: WorkspaceFile[], skipped: readonly SkippedFile[] = []): Promise<SnapshotRef> {
    const ref = sha256(manifestOf(files, skipped).text);
    this.left.set(
      ref,
      skipped
        .map((file) => ({ path: file.path, size: file.size }))
        .sort((a, b) => (a.path < b.path ? -1 : 1)),
    );
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

  async skipped(ref: SnapshotRef): Promise<SkippedFile[]> {
    const files = this.left.get(ref);
    if (!files) throw new Error(`no snapshot ${ref}`);
    return files.map((file) => ({ ...file }));
  }

  async has(ref: SnapshotRef): Promise<boolean> {
    return this.snapshots.has(ref);
  }

  get size(): number {
    return this.snapshots.size;
  }
}
