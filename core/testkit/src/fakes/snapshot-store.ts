import {
  type ManifestEntry,
  manifestText,
  type SkippedFile,
  type SnapshotBlob,
  type SnapshotEntry,
  type SnapshotRef,
  type SnapshotStore,
  type SnapshotWriter,
  sha256,
  type WorkspaceFile,
} from '@longhaul/core';

/** What a FakeSnapshotStore was handed and asked, for checks that the store is used as a stream. */
export interface SnapshotStoreUse {
  /** The most bytes given at once: a whole file to `put` or `add`, or one chunk of a stream. */
  largestPiece: number;
  /** Calls of `get` (which holds a whole snapshot) and of `put`. */
  gets: number;
  puts: number;
}

/** Snapshots in memory, with the same refs a run directory's BlobSnapshotStore gives. */
export class FakeSnapshotStore implements SnapshotStore {
  private readonly manifests = new Map<SnapshotRef, { files: ManifestEntry[]; skipped: SkippedFile[] }>();
  private readonly blobs = new Map<string, Uint8Array>();
  readonly use: SnapshotStoreUse = { largestPiece: 0, gets: 0, puts: 0 };

  async put(files: WorkspaceFile[], skipped: readonly SkippedFile[] = []): Promise<SnapshotRef> {
    this.use.puts++;
    const writer = this.writer();
    for (const file of files) await writer.add(file, file.data);
    for (const file of skipped) writer.skip(file);
    return writer.finish();
  }

  writer(): SnapshotWriter {
    const files: ManifestEntry[] = [];
    const skipped: SkippedFile[] = [];
    return {
      add: async (file, data) => {
        let bytes: Uint8Array;
        if (data instanceof Uint8Array) {
          this.use.largestPiece = Math.max(this.use.largestPiece, data.length);
          bytes = new Uint8Array(data);
        } else {
          const chunks: Uint8Array[] = [];
          for await (const chunk of data) {
            this.use.largestPiece = Math.max(this.use.largestPiece, chunk.length);
            chunks.push(new Uint8Array(chunk));
          }
          bytes = new Uint8Array(Buffer.concat(chunks));
        }
        const blob = sha256(bytes);
        this.blobs.set(blob, bytes);
        files.push({ path: file.path, mode: file.mode, blob });
      },
      skip: (file) => {
        skipped.push(file);
      },
      finish: async () => {
        const text = manifestText(files, skipped);
        const ref = sha256(text);
        const sorted = (list: { path: string }[]) => list.sort((a, b) => (a.path < b.path ? -1 : 1));
        this.manifests.set(ref, {
          files: sorted([...files]) as ManifestEntry[],
          skipped: sorted(
            skipped.map((file) => ({
              path: file.path,
              size: file.size,
              ...(file.reason !== undefined && file.reason !== 'size' ? { reason: file.reason } : {}),
            })),
          ) as SkippedFile[],
        });
        return ref;
      },
    };
  }

  async get(
    ref: SnapshotRef,
    options: { include?: (path: string) => boolean } = {},
  ): Promise<WorkspaceFile[]> {
    this.use.gets++;
    const include = options.include ?? (() => true);
    return (await this.entries(ref))
      .filter((entry) => include(entry.path))
      .map((entry) => ({ path: entry.path, mode: entry.mode, data: new Uint8Array(this.bytes(entry.blob)) }));
  }

  async entries(ref: SnapshotRef): Promise<SnapshotEntry[]> {
    const manifest = this.manifests.get(ref);
    if (!manifest) throw new Error(`no snapshot ${ref}`);
    return manifest.files.map((entry) => ({ ...entry }));
  }

  async *scan(ref: SnapshotRef): AsyncIterable<SnapshotEntry> {
    yield* await this.entries(ref);
  }

  blob(hash: string): SnapshotBlob {
    return {
      size: async () => this.bytes(hash).length,
      bytes: async () => new Uint8Array(this.bytes(hash)),
      stream: async function* (this: FakeSnapshotStore) {
        const bytes = this.bytes(hash);
        // In pieces, as a store on disk gives them.
        for (let at = 0; at < bytes.length; at += 64 * 1024) yield bytes.slice(at, at + 64 * 1024);
      }.bind(this),
    };
  }

  async skipped(ref: SnapshotRef): Promise<SkippedFile[]> {
    const manifest = this.manifests.get(ref);
    if (!manifest) throw new Error(`no snapshot ${ref}`);
    return manifest.skipped.map((file) => ({ ...file }));
  }

  async *scanSkipped(ref: SnapshotRef): AsyncIterable<SkippedFile> {
    yield* await this.skipped(ref);
  }

  async has(ref: SnapshotRef): Promise<boolean> {
    return this.manifests.has(ref);
  }

  get size(): number {
    return this.manifests.size;
  }

  private bytes(hash: string): Uint8Array {
    const bytes = this.blobs.get(hash);
    if (!bytes) throw new Error(`no blob ${hash}`);
    return bytes;
  }
}
