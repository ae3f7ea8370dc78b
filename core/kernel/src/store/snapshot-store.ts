import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { access, mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
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
import { writeFileAtomic } from './atomic.js';

/** One line of a snapshot manifest. */
export interface ManifestEntry {
  path: string;
  mode: number;
  /** sha256 of the file's bytes: the name of its blob. */
  blob: string;
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * The manifest text whose sha256 is a snapshot's ref; sorted so equal workspaces get equal refs.
 * Files skipped for their size are listed (path and size) only when there are any, so the refs of
 * workspaces without them do not change.
 */
export function manifestText(files: readonly ManifestEntry[], skipped: readonly SkippedFile[] = []): string {
  const entries = files.map((file) => ({ path: file.path, mode: file.mode, blob: file.blob })).sort(byPath);
  // A reason is written only when it is not the size, so refs of size-only skips stay as they were.
  const left = skipped
    .map((file) => ({
      path: file.path,
      size: file.size,
      ...(file.reason !== undefined && file.reason !== 'size' ? { reason: file.reason } : {}),
    }))
    .sort(byPath);
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

interface Manifest {
  files: ManifestEntry[];
  skipped?: SkippedFile[];
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
  /** Blobs this process stored or found stored: never asked of the disk again (blobs are never removed from a run). */
  private readonly stored = new Set<string>();
  /** Temp files are named by this process's pid, this store's random prefix and a count. */
  private readonly tempPrefix = randomBytes(6).toString('hex');
  private temps = 0;

  constructor(readonly dir: string) {
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
    this.stored.add(blob);
    return { blob, written: path };
  }

  /** Whether the blob is stored. */
  async holds(blob: string): Promise<boolean> {
    if (this.stored.has(blob)) return true;
    if (!existsSync(this.blobPath(blob))) return false;
    this.stored.add(blob);
    return true;
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
      this.stored.add(blob);
      return { blob, written: path };
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  private async tempFile(): Promise<string> {
    await this.folder(this.blobs);
    return join(this.blobs, `.${process.pid}.${this.tempPrefix}.${this.temps++}.tmp`);
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
   * Makes new blobs durable before a manifest names them: a few are flushed each, many at once by
   * flushing their filesystem (`sync -f`, one call instead of an fsync per file).
   */
  async flush(paths: readonly string[]): Promise<void> {
    if (paths.length > syncEachUpTo) {
      const synced = await new Promise<boolean>((done) =>
        execFile('sync', ['-f', this.blobs], (error) => done(error === null)),
      );
      if (synced) return;
    }
    let next = 0;
    const flusher = async () => {
      while (next < paths.length) {
        const file = await open(paths[next++]!, 'r');
        try {
          await file.sync();
        } finally {
          await file.close();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(blobReaders, paths.length) }, flusher));
  }

  /** Writes a manifest (blobs first, manifest last: a manifest on disk always has all its blobs). */
  async storeManifest(text: string): Promise<SnapshotRef> {
    await mkdir(this.manifests, { recursive: true });
    const ref = sha256(text);
    const manifest = join(this.manifests, `${ref}.json`);
    if (!(await exists(manifest))) await writeFileAtomic(manifest, text);
    return ref;
  }

  async get(
    ref: SnapshotRef,
    options: { include?: (path: string) => boolean } = {},
  ): Promise<WorkspaceFile[]> {
    const include = options.include ?? (() => true);
    const entries = (await this.manifest(ref)).filter((entry) => include(entry.path));
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

  async *scan(ref: SnapshotRef): AsyncIterable<SnapshotEntry> {
    yield* await this.manifest(ref);
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
    return (await this.read(ref)).skipped ?? [];
  }

  async has(ref: SnapshotRef): Promise<boolean> {
    return refPattern.test(ref) && exists(join(this.manifests, `${ref}.json`));
  }

  /** The manifest of a snapshot (paths, modes, blob hashes) without reading the blobs. */
  async manifest(ref: SnapshotRef): Promise<ManifestEntry[]> {
    return (await this.read(ref)).files;
  }

  private async read(ref: SnapshotRef): Promise<Manifest> {
    if (!refPattern.test(ref)) throw new ClassifiedError('internal', `not a snapshot ref: '${ref}'`);
    let text: string;
    try {
      text = await readFile(join(this.manifests, `${ref}.json`), 'utf8');
    } catch {
      throw new ClassifiedError('internal', `snapshot ${ref} is not in ${this.dir}`);
    }
    return JSON.parse(text) as Manifest;
  }

  private blobPath(blob: string): string {
    return join(this.blobs, blob.slice(0, 2), blob.slice(2));
  }
}

/** A snapshot of a BlobSnapshotStore being written, file by file. */
class BlobWriter implements SnapshotWriter {
  private readonly files: ManifestEntry[] = [];
  private readonly left: SkippedFile[] = [];
  /** Blobs this snapshot wrote, to flush before its manifest. */
  private readonly written: string[] = [];

  constructor(private readonly store: BlobSnapshotStore) {}

  async add(
    file: { path: string; mode: number },
    data: Uint8Array | AsyncIterable<Uint8Array>,
  ): Promise<string> {
    const stored =
      data instanceof Uint8Array ? await this.store.storeBytes(data) : await this.store.storeStream(data);
    if (stored.written !== undefined) this.written.push(stored.written);
    this.files.push({ path: file.path, mode: file.mode, blob: stored.blob });
    return stored.blob;
  }

  async addStored(file: { path: string; mode: number }, blob: string): Promise<boolean> {
    if (!refPattern.test(blob) || !(await this.store.holds(blob))) return false;
    this.files.push({ path: file.path, mode: file.mode, blob });
    return true;
  }

  skip(file: SkippedFile): void {
    this.left.push(file);
  }

  async finish(): Promise<SnapshotRef> {
    await this.store.flush(this.written);
    return this.store.storeManifest(manifestText(this.files, this.left));
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
