import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type {
  PullOptions,
  SkippedFile,
  SnapshotBlob,
  SnapshotEntry,
  SnapshotRef,
  SnapshotStore,
  SnapshotWriter,
  WorkspaceFile,
} from '../contracts/index.js';
import { ClassifiedError } from '../contracts/index.js';
import { quickBytes, turnWhenDue } from '../workspace/event-loop-turns.js';
import { chunksOf } from '../workspace/walk.js';
import {
  exists,
  fileRecord,
  listOf,
  type ManifestEntry,
  manifestList,
  skippedRecord,
  writeManifest,
} from './manifest-file.js';
import { byPath } from './pair-by-path.js';
import { defaultRunSize, SortedSpill } from './sorted-spill.js';

export type { ManifestEntry } from './manifest-file.js';

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * The manifest text whose sha256 is a snapshot's ref; sorted so equal workspaces get equal refs.
 * Files skipped for their size are listed (path and size) only when there are any, so the refs of
 * workspaces without them do not change.
 */
export function manifestText(files: readonly ManifestEntry[], skipped: readonly SkippedFile[] = []): string {
  const entries = files.map(fileRecord).sort(byPath);
  const left = skipped.map(skippedRecord).sort(byPath);
  const manifest = left.length > 0 ? { files: entries, skipped: left } : { files: entries };
  return `${JSON.stringify(manifest)}\n`;
}

/** The manifest of files held in memory (see manifestText). */
export function manifestOf(
  files: readonly WorkspaceFile[],
  skipped: readonly SkippedFile[] = [],
): { entries: ManifestEntry[]; text: string } {
  const entries = files
    .map((file) => ({ path: file.path, mode: file.mode, blob: sha256(file.data) }))
    .sort(byPath);
  return { entries, text: manifestText(entries, skipped) };
}

/**
 * `Sandbox.snapshot()` for an environment that can only pull its workspace whole into memory:
 * pulls it, noting the files the pull skips, and stores both. Environments whose workspace is a
 * host folder stream instead (FolderWorkspace.snapshot).
 */
export async function snapshotWorkspace(
  store: SnapshotStore,
  pull: (options: PullOptions) => Promise<WorkspaceFile[]>,
): Promise<SnapshotRef> {
  const skipped: SkippedFile[] = [];
  const files = await pull({ onSkipped: (file) => skipped.push(file) });
  return store.put(files, skipped);
}

const refPattern = /^[0-9a-f]{64}$/;
/** Blobs known stored that a store remembers (see BlobSnapshotStore.stored): about 6 MiB. */
const storedKept = 50_000;

/** Blobs read at once by `get`. */
const blobReaders = 32;
/** Blobs up to this size are read whole with one synchronous call (a diff reads up to 1 MiB a file). */
const syncReadBytes = 1024 * 1024;
/** Chunks of a blob's stream. */
const chunkBytes = 1024 * 1024;
/** New blobs past which a snapshot flushes the filesystem once (`sync -f`) instead of each file. */
const syncEachUpTo = 16;

/**
 * Content-addressed snapshots in a run directory: file contents as sha256-named blobs under
 * `snapshots/blobs/`, one manifest per snapshot under `snapshots/manifests/` named by its own
 * sha256 (the ref). Identical files are stored once across steps and trials.
 */
export class BlobSnapshotStore implements SnapshotStore {
  private readonly blobs: string;
  private readonly manifests: string;
  /** Folders of the store this process made or found. */
  private readonly made = new Set<string>();
  /**
   * Blobs this process stored or found stored lately: not asked of the disk again (blobs are never
   * removed from a run). Forgotten all at once past `storedKept`, so a run of many large workspaces
   * holds a bounded number, not every blob it ever saw.
   */
  private readonly stored = new Set<string>();
  /** Temp files are named by this process's pid, this store's random prefix and a count. */
  private readonly tempPrefix = randomBytes(6).toString('hex');
  private temps = 0;

  constructor(
    readonly dir: string,
    /** Manifest entries a snapshot holds in memory before it sorts them into a temp file (see SortedSpill). */
    readonly runSize = defaultRunSize,
  ) {
    this.blobs = join(dir, 'blobs');
    this.manifests = join(dir, 'manifests');
  }

  async put(files: WorkspaceFile[], skipped: readonly SkippedFile[] = []): Promise<SnapshotRef> {
    const writer = this.writer();
    for (const file of files) await writer.add(file, file.data);
    for (const file of skipped) writer.skip(file);
    return writer.finish();
  }

  writer(): SnapshotWriter {
    return new BlobWriter(this);
  }

  /** Stores bytes held in memory as a blob unless it is there; the path written, if any. */
  async storeBytes(data: Uint8Array): Promise<{ blob: string; written?: string }> {
    const blob = sha256(data);
    const path = this.blobPath(blob);
    if (await this.holds(blob)) return { blob };
    const temp = await this.tempFile();
    await this.folder(dirname(path));
    try {
      // A small blob is written with synchronous calls (see turnWhenDue): a snapshot of 100,000
      // new files would otherwise pass three calls each through the thread pool.
      if (data.length <= quickBytes) {
        writeFileSync(temp, data, { flag: 'wx' });
        renameSync(temp, path);
      } else {
        await writeFile(temp, data, { flag: 'wx' });
        await rename(temp, path);
      }
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
    this.remember(blob);
    return { blob, written: path };
  }

  /** Whether the blob is stored. */
  async holds(blob: string): Promise<boolean> {
    if (this.stored.has(blob)) return true;
    if (!existsSync(this.blobPath(blob))) return false;
    this.remember(blob);
    return true;
  }

  private remember(blob: string): void {
    if (this.stored.size >= storedKept) this.stored.clear();
    this.stored.add(blob);
  }

  /**
   * Stores chunks as a blob, hashing and writing them as they pass: one chunk in memory at a time.
   * The temp file becomes the blob, or goes when that blob is already stored.
   */
  async storeStream(chunks: AsyncIterable<Uint8Array>): Promise<{ blob: string; written?: string }> {
    const temp = await this.tempFile();
    const hash = createHash('sha256');
    try {
      const out = await open(temp, 'wx');
      try {
        for await (const chunk of chunks) {
          hash.update(chunk);
          await out.write(chunk);
        }
      } finally {
        await out.close();
      }
      const blob = hash.digest('hex');
      const path = this.blobPath(blob);
      if (await this.holds(blob)) {
        await rm(temp, { force: true });
        return { blob };
      }
      await this.settle(temp, path);
      this.remember(blob);
      return { blob, written: path };
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  private async tempFile(): Promise<string> {
    await this.folder(this.blobs);
    return join(this.blobs, this.tempName());
  }

  private tempName(): string {
    return `.${process.pid}.${this.tempPrefix}.${this.temps++}.tmp`;
  }

  /** A temp file's name in the store's folder (made if need be): a writer's sorted runs and its manifest. */
  tempPath(): string {
    if (!this.made.has(this.dir)) {
      mkdirSync(this.dir, { recursive: true });
      this.made.add(this.dir);
    }
    return join(this.dir, this.tempName());
  }

  private async settle(temp: string, path: string): Promise<void> {
    await this.folder(dirname(path));
    await rename(temp, path);
  }

  /** Makes a folder of the store once per process: a snapshot of many files would ask thousands of times. */
  private async folder(path: string): Promise<void> {
    if (this.made.has(path)) return;
    await mkdir(path, { recursive: true });
    this.made.add(path);
  }

  /**
   * Makes new blobs durable before a manifest names them: a few (`paths`, all of them when
   * `count` is at most `syncEachUpTo`) are flushed each, many at once by flushing their filesystem
   * (`sync -f`, one call instead of an fsync per file; every filesystem where `-f` is refused).
   */
  async flush(paths: readonly string[], count: number): Promise<void> {
    if (count > syncEachUpTo) {
      const sync = (args: string[]) =>
        new Promise<boolean>((done) => execFile('sync', args, (error) => done(error === null)));
      if ((await sync(['-f', this.blobs])) || (await sync([]))) return;
      throw new ClassifiedError('internal', `could not flush the new blobs of ${this.dir} (sync)`);
    }
    await Promise.all(
      paths.map(async (path) => {
        const file = await open(path, 'r');
        try {
          await file.sync();
        } finally {
          await file.close();
        }
      }),
    );
  }

  /**
   * Writes a manifest from a writer's sorted entries (its blobs flushed first: a manifest on disk
   * always has all its blobs).
   */
  async storeManifest(
    files: SortedSpill<ManifestEntry>,
    skipped: SortedSpill<SkippedFile>,
  ): Promise<SnapshotRef> {
    await this.folder(this.manifests);
    return writeManifest(this.tempPath(), this.manifests, files, skipped);
  }

  async get(
    ref: SnapshotRef,
    options: { include?: (path: string) => boolean } = {},
  ): Promise<WorkspaceFile[]> {
    const include = options.include ?? (() => true);
    const entries: ManifestEntry[] = [];
    for await (const entry of this.scan(ref)) if (include(entry.path)) entries.push(entry);
    // Each blob is read once, however many files share it, and a few at a time: a workspace of
    // 200,000 files would otherwise open 200,000 at once (EMFILE) and hold a copy per file.
    const blobs = [...new Set(entries.map((entry) => entry.blob))];
    const data = new Map<string, Uint8Array>();
    let next = 0;
    const reader = async () => {
      while (next < blobs.length) {
        const blob = blobs[next++]!;
        data.set(blob, new Uint8Array(await this.blob(blob).bytes()));
      }
    };
    await Promise.all(Array.from({ length: Math.min(blobReaders, blobs.length) }, reader));
    return entries.map((entry) => ({ path: entry.path, mode: entry.mode, data: data.get(entry.blob)! }));
  }

  entries(ref: SnapshotRef): Promise<SnapshotEntry[]> {
    return this.manifest(ref);
  }

  scan(ref: SnapshotRef): AsyncGenerator<ManifestEntry> {
    return manifestList(this.manifestPath(ref), ref, 'files');
  }

  scanSkipped(ref: SnapshotRef): AsyncGenerator<SkippedFile> {
    return manifestList(this.manifestPath(ref), ref, 'skipped');
  }

  blob(hash: string): SnapshotBlob {
    if (!refPattern.test(hash)) throw new ClassifiedError('internal', `not a blob hash: '${hash}'`);
    const path = this.blobPath(hash);
    const missing = (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      throw new ClassifiedError('internal', `blob ${hash} is not in ${this.dir}`);
    };
    // Size and small bytes with synchronous calls (see turnWhenDue): a diff of 100,000 added
    // files asks both of each one.
    const size = async () => {
      await turnWhenDue();
      try {
        return statSync(path).size;
      } catch (error) {
        return missing(error);
      }
    };
    return {
      file: path,
      size,
      bytes: async () => {
        if ((await size()) > syncReadBytes) return readFile(path).catch(missing);
        try {
          return readFileSync(path);
        } catch (error) {
          return missing(error);
        }
      },
      // A small blob is one read: no stream object per file, which a restore of many would pay.
      stream: () =>
        (async function* () {
          const file = await open(path, 'r').catch(missing);
          try {
            yield* chunksOf(file, (await file.stat()).size, chunkBytes);
          } finally {
            await file.close();
          }
        })(),
    };
  }

  async skipped(ref: SnapshotRef): Promise<SkippedFile[]> {
    return listOf(this.scanSkipped(ref));
  }

  async has(ref: SnapshotRef): Promise<boolean> {
    return refPattern.test(ref) && exists(this.manifestPath(ref));
  }

  /** The manifest of a snapshot (paths, modes, blob hashes) without reading the blobs. */
  async manifest(ref: SnapshotRef): Promise<ManifestEntry[]> {
    return listOf(this.scan(ref));
  }

  private manifestPath(ref: SnapshotRef): string {
    if (!refPattern.test(ref)) throw new ClassifiedError('internal', `not a snapshot ref: '${ref}'`);
    return join(this.manifests, `${ref}.json`);
  }

  private blobPath(blob: string): string {
    return join(this.blobs, blob.slice(0, 2), blob.slice(2));
  }
}

/**
 * A snapshot of a BlobSnapshotStore being written, file by file: its entries and skipped files
 * are sorted a run at a time into temp files (SortedSpill), so its memory does not grow with the
 * workspace.
 */
class BlobWriter implements SnapshotWriter {
  private readonly files: SortedSpill<ManifestEntry>;
  private readonly left: SortedSpill<SkippedFile>;
  /**
   * The first blobs this snapshot wrote, to flush before its manifest, and how many it wrote: past
   * a few, their filesystem is flushed whole (see flush), so a million new files' names are not held.
   */
  private readonly written: string[] = [];
  private writtenCount = 0;

  constructor(private readonly store: BlobSnapshotStore) {
    const temp = () => store.tempPath();
    this.files = new SortedSpill(temp, (file) => JSON.stringify(fileRecord(file)), store.runSize);
    this.left = new SortedSpill(temp, (file) => JSON.stringify(skippedRecord(file)), store.runSize);
  }

  async add(
    file: { path: string; mode: number },
    data: Uint8Array | AsyncIterable<Uint8Array>,
  ): Promise<string> {
    const stored =
      data instanceof Uint8Array ? await this.store.storeBytes(data) : await this.store.storeStream(data);
    if (stored.written !== undefined && this.writtenCount++ < syncEachUpTo) this.written.push(stored.written);
    this.files.add({ path: file.path, mode: file.mode, blob: stored.blob });
    return stored.blob;
  }

  async addStored(file: { path: string; mode: number }, blob: string): Promise<boolean> {
    if (!refPattern.test(blob) || !(await this.store.holds(blob))) return false;
    this.files.add({ path: file.path, mode: file.mode, blob });
    return true;
  }

  skip(file: SkippedFile): void {
    this.left.add(file);
  }

  async finish(): Promise<SnapshotRef> {
    try {
      await this.store.flush(this.written, this.writtenCount);
      return await this.store.storeManifest(this.files, this.left);
    } finally {
      for (const spill of [this.files, this.left]) spill.close();
    }
  }
}
