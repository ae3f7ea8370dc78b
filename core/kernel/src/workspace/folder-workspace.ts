import { createHash } from 'node:crypto';
import { type FileHandle, mkdtemp, opendir } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  FileEntry,
  PullOptions,
  ReadFileOptions,
  SkippedFile,
  SnapshotEntry,
  SnapshotRef,
  SnapshotStore,
  SnapshotWriter,
  WorkspaceFile,
} from '../contracts/index.js';
import { ClassifiedError } from '../contracts/status.js';
import { quickBytes, turnWhenDue } from './event-loop-turns.js';
import type { ExcludeMatcher } from './excludes.js';
import { FolderWriter } from './folder-writer.js';
import { pool } from './pool.js';
import { type Stamp, StampFile, type StampReader, type StampWriter } from './stamps.js';
import { makeStampsFolder, removeStampsFolder } from './stamps-folder.js';
import { chunksOf, readWhole, type SkipReason, type WalkEntry, walkWorkspace } from './walk.js';
import { linkLeaves, lstatIn, WorkspaceHandle, type WorkspaceHandleOptions } from './workspace-handle.js';

/** Snapshots carry a symlink as a file whose mode has these type bits and whose data is the target. */
export const symlinkMode = 0o120000;
const typeBits = 0o170000;

function entryType(type: WalkEntry['type']): FileEntry['type'] {
  // A FIFO, socket or device is listed as a file (it is one to `ls`); pulls leave it out.
  return type === 'special' ? 'file' : type;
}

/** Files up to this size are read whole (one read); larger ones are streamed in chunks. */
const wholeBytes = 64 * 1024;
/** Files read or written at once by a snapshot or a restore. */
const parallel = 8;

/** A file a push or a restore wants: a snapshot's entry or a file held in memory, as it is. */
interface Wanted {
  path: string;
  mode: number;
}

/**
 * Where the files a push or a restore wants come from. A wanted file is the record it came as (a
 * snapshot's entry, a file in memory): no closures or copies per file, which a workspace of
 * 100,000 files would feel.
 */
interface Source<W extends Wanted> {
  size(file: W): Promise<number>;
  /** Whether the open file, of the same size, holds these bytes. */
  same(file: W, handle: FileHandle, size: number): Promise<boolean>;
  /** Whether these bytes, read whole, are the file's. */
  sameBytes(file: W, data: Uint8Array): boolean;
  /** The bytes, whole or as chunks. */
  data(file: W): Promise<Uint8Array | AsyncIterable<Uint8Array>>;
  /** A host file holding the bytes, to copy instead (a stored blob), when there is one. */
  file?(file: W): string | undefined;
}

/** How long after a file's change its times are trusted to tell a later change (filesystem clocks tick coarsely). */
const racyMs = 2_000;

function stampOf(entry: WalkEntry): Omit<Stamp, 'blob'> {
  return {
    size: entry.size,
    mode: entry.mode,
    ino: entry.ino,
    mtimeMs: entry.mtimeMs,
    ctimeMs: entry.ctimeMs,
  };
}

function sameStamp(seen: Stamp, entry: WalkEntry): boolean {
  return (
    seen.size === entry.size &&
    seen.mode === entry.mode &&
    seen.ino === entry.ino &&
    seen.mtimeMs === entry.mtimeMs &&
    seen.ctimeMs === entry.ctimeMs
  );
}

/** Bytes whole, from chunks if need be (a link's target: a few bytes). */
async function whole(data: Uint8Array | AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  if (data instanceof Uint8Array) return data;
  const chunks: Uint8Array[] = [];
  for await (const chunk of data) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function sha256Of(file: FileHandle, size: number): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of chunksOf(file, size)) hash.update(chunk);
  return hash.digest('hex');
}

/**
 * A workspace that is a directory on the host: file operations, listings, and whole-workspace
 * pull, push, snapshot and restore, for environments whose sandboxes work in a host folder (a
 * container's volume included). Every one goes through a WorkspaceHandle (see there why): paths
 * are opened component by component beneath the workspace, links are followed only while they
 * stay inside, and walks never follow a link at all. A process in the sandbox swapping folders and
 * links meanwhile can make an operation fail, never make it reach the host. Snapshots and restores
 * stream each file between the workspace and the store, a few at a time, so memory does not grow
 * with the workspace.
 */
export class FolderWorkspace {
  private readonly handle: WorkspaceHandle;
  /** The files of the last snapshot with their stamps (see Stamp): the next one reads only what changed. */
  private lastSnapshot: { store: SnapshotStore; stamps: StampFile } | undefined;
  /** A folder of the runner's own where stamps are kept, made at the first snapshot. */
  private stampsDir: string | undefined;
  private snapshots = 0;
  /** The workspace as the sandbox sees it (links are judged against it). */
  readonly inside: string;

  constructor(
    /** The workspace with symlinks resolved, so that checks compare like with like. */
    readonly root: string,
    private readonly excluded: ExcludeMatcher,
    /** Regular files larger than this are left out of pulls unread (the `maxFileSize` option). */
    private readonly maxFileBytes: number,
    /**
     * Where the sandbox sees the workspace, and who owns what the runner writes (see
     * WorkspaceHandle); `scratch`: a folder no process of the sandbox reaches, where the runner's
     * own files for this workspace go (default: the system's temp folder).
     */
    private readonly options: WorkspaceHandleOptions & { scratch?: string } = {},
  ) {
    this.handle = new WorkspaceHandle(root, options);
    this.inside = this.handle.inside;
  }
  /**
   * The host path of a workspace path with its links followed inside the workspace, refused when
   * it leads out. For a command's cwd only: the command itself then runs in the sandbox.
   */
  async resolve(path: string): Promise<string> {
    const real = await this.handle.real(path);
    return real === '' ? this.root : join(this.root, real);
  }

  /** Refused unless every folder on the way to `path` is a folder, not a link. */
  async plainFolders(path: string): Promise<void> {
    const wanted = this.handle.parts(path).join('/');
    const real = await this.handle.real(path).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return wanted;
      throw error;
    });
    if (real !== wanted)
      throw new ClassifiedError(
        'sandbox',
        `"${path}" in the workspace goes through a link (to ${real || '.'})`,
      );
  }

  readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    return this.handle.readFile(path, options.maxBytes);
  }

  writeFile(
    path: string,
    data: string | Uint8Array | AsyncIterable<Uint8Array>,
    mode?: number,
  ): Promise<void> {
    return this.handle.writeFile(path, data, mode);
  }

  remove(path: string): Promise<void> {
    return this.handle.remove(path);
  }

  async list(path: string, recursive: boolean): Promise<FileEntry[]> {
    const asked = this.handle.parts(path).join('/');
    path = asked;
    const entry = (rel: string, type: WalkEntry['type'], mode: number, size: number): FileEntry => ({
      path: rel,
      type: entryType(type),
      size,
      mode: mode & 0o7777,
    });
    const single = await this.handle.folder(
      path,
      async () => undefined,
      async (dir: FileHandle, name: string) => {
        const stat = await lstatIn(dir, name);
        const type = stat.isSymbolicLink() ? 'symlink' : stat.isDirectory() ? 'dir' : 'file';
        return entry(asked, type, stat.mode, stat.size);
      },
    );
    if (single) return [single];
    const entries: FileEntry[] = [];
    let real: string | undefined;
    await walkWorkspace(
      this.root,
      {
        enter: (dir) => {
          real ??= dir;
          return true;
        },
        visit: (found) => {
          // Through a link inside the workspace, entries are named as they were asked for.
          const rel = real && real !== asked ? `${asked}${found.path.slice(real.length)}` : found.path;
          entries.push(entry(rel, found.type, found.mode, found.size));
          return recursive;
        },
        onSkipped: (skip) => {
          if (skip.reason === 'count')
            throw new ClassifiedError('sandbox', `listing "${path}": more entries than a listing takes`);
        },
        inside: this.inside,
      },
      path,
    );
    return entries.sort((a, b) => a.path.localeCompare(b.path));
  }

  /**
   * Every file and symlink outside the excludes, sorted by path (so equal workspaces pull equal).
   * A file over the size limit is judged by its lstat and never opened. Left out and reported to
   * `onSkipped` with their reason: links leading out of the workspace (a snapshot holds no host
   * path), FIFOs, sockets and devices, unreadable files, names that are not UTF-8, folders nested
   * too deep, and all past the walk's entry limit.
   */
  async pull(options: PullOptions = {}): Promise<WorkspaceFile[]> {
    const files: WorkspaceFile[] = [];
    const maxFileBytes = Math.min(this.maxFileBytes, options.maxFileBytes ?? Number.POSITIVE_INFINITY);
    await walkWorkspace(this.root, {
      visit: async (entry) => {
        if (this.excluded(entry.path)) return false;
        if (
          options.only &&
          !options.only({ path: entry.path, type: entryType(entry.type), size: entry.size })
        )
          return false;
        if (entry.type === 'dir') return true;
        if (entry.type === 'symlink') {
          const target = entry.target ?? '';
          if (linkLeaves(entry.path, target, this.inside))
            options.onSkipped?.({ path: entry.path, size: entry.size, reason: 'link' });
          else files.push({ path: entry.path, mode: symlinkMode | 0o777, data: Buffer.from(target) });
          return;
        }
        if (entry.type === 'special') {
          options.onSkipped?.({ path: entry.path, size: entry.size, reason: 'type' });
          return;
        }
        if (entry.size > maxFileBytes) {
          options.onSkipped?.({ path: entry.path, size: entry.size });
          return;
        }
        const data = await entry.read(maxFileBytes);
        if (typeof data === 'string') {
          options.onSkipped?.({
            path: entry.path,
            size: entry.size,
            ...(data === 'size' ? {} : { reason: data }),
          });
          return;
        }
        files.push({ path: entry.path, mode: entry.mode & 0o7777, data });
      },
      onSkipped: (skip) => options.onSkipped?.(skip),
      inside: this.inside,
    });
    return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * Stores the workspace in `store` as `pull` would give it, with what it skips, file by file:
   * small files are read whole, larger ones stream in chunks, a few files at a time. The ref.
   */
  async snapshot(store: SnapshotStore): Promise<SnapshotRef> {
    const writer = store.writer();
    const skip = (file: SkippedFile): undefined => {
      writer.skip(file);
    };
    const started = Date.now();
    const previous = this.lastSnapshot?.store === store ? this.lastSnapshot.stamps.reader() : undefined;
    const { file: stampFile, writer: stamps } = await StampFile.create(
      await this.scratchDir(),
      `stamps-${this.snapshots++}`,
    );
    try {
      const ref = await this.takeSnapshot(writer, skip, started, previous, stamps);
      await stamps.close();
      await this.lastSnapshot?.stamps.remove();
      this.lastSnapshot = { store, stamps: stampFile };
      return ref;
    } catch (error) {
      await stamps.close().catch(() => undefined);
      await stampFile.remove();
      throw error;
    } finally {
      await previous?.close();
    }
  }

  /** Removes what the runner kept for this workspace (the stamps of its last snapshot). */
  async dispose(): Promise<void> {
    this.lastSnapshot = undefined;
    if (this.stampsDir === undefined) return;
    await removeStampsFolder(this.stampsDir);
    this.stampsDir = undefined;
  }

  private async scratchDir(): Promise<string> {
    if (this.stampsDir === undefined) {
      this.stampsDir =
        this.options.scratch === undefined
          ? await makeStampsFolder()
          : await mkdtemp(join(this.options.scratch, 'longhaul-stamps-'));
    }
    return this.stampsDir;
  }

  private async takeSnapshot(
    writer: SnapshotWriter,
    skip: (file: SkippedFile) => undefined,
    started: number,
    previous: StampReader | undefined,
    stamps: StampWriter,
  ): Promise<SnapshotRef> {
    /** A file unchanged since the last snapshot (see Stamp) is named by its blob, not read again. */
    const unchanged = async (entry: WalkEntry, known: Stamp | undefined): Promise<boolean> => {
      if (known === undefined || writer.addStored === undefined || !sameStamp(known, entry)) return false;
      return writer.addStored({ path: entry.path, mode: entry.mode & 0o7777 }, known.blob);
    };
    const take = async (entry: WalkEntry, known: Stamp | undefined): Promise<Stamp | undefined> => {
      // A change in the same clock tick as the stat would leave the times as they were: only a file
      // older than that is trusted unchanged by its times.
      const remember = (blob: string | undefined) =>
        blob !== undefined && entry.ctimeMs < started - racyMs ? { ...stampOf(entry), blob } : undefined;
      if (entry.type === 'symlink') {
        const target = entry.target ?? '';
        if (linkLeaves(entry.path, target, this.inside))
          skip({ path: entry.path, size: entry.size, reason: 'link' });
        else await writer.add({ path: entry.path, mode: symlinkMode | 0o777 }, Buffer.from(target));
        return;
      }
      if (entry.type === 'special') return skip({ path: entry.path, size: entry.size, reason: 'type' });
      if (entry.size > this.maxFileBytes) return skip({ path: entry.path, size: entry.size });
      if (await unchanged(entry, known)) return known;
      const mode = entry.mode & 0o7777;
      if (entry.size <= quickBytes) {
        await turnWhenDue();
        const data = entry.readNow(this.maxFileBytes);
        if (typeof data === 'string') return skip(skipped(entry, data));
        // Grown past a quick read since the walk saw it: read as a large file below.
        if (data !== undefined)
          return remember((await writer.add({ path: entry.path, mode }, data)) || undefined);
      }
      const opened = await entry.open();
      if (typeof opened === 'string') return skip(skipped(entry, opened));
      const { file, size } = opened;
      try {
        if (size > this.maxFileBytes) return skip({ path: entry.path, size });
        if (size <= wholeBytes) {
          const data = await readWhole(file, this.maxFileBytes, size);
          if (typeof data === 'string') return skip(skipped(entry, data));
          return remember((await writer.add({ path: entry.path, mode }, data)) || undefined);
        }
        try {
          return remember((await writer.add({ path: entry.path, mode }, chunksOf(file, size))) || undefined);
        } catch (error) {
          // The file went bad while it was read (EIO): left out like a file that could not be opened.
          if ((error as NodeJS.ErrnoException).code !== 'EIO') throw error;
          skip(skipped(entry, 'unreadable'));
        }
      } finally {
        await file.close();
      }
    };
    await walkWorkspace(this.root, {
      // A folder's files are taken while its handle is open, a few at a time. Their stamps from the
      // last snapshot are looked up first, in the walk's order (see StampFile), and theirs now are
      // written when the folder is done: only one folder's stamps are held at once.
      enter: async (_dir, entries) => {
        const files = entries.filter((entry) => entry.type !== 'dir' && !this.excluded(entry.path));
        const known: (Stamp | undefined)[] = [];
        for (const entry of files)
          known.push(entry.type === 'file' ? await previous?.find(entry.path) : undefined);
        const seen: Array<[string, Stamp]> = [];
        await pool(
          files.map((entry, index) => ({ entry, known: known[index] })),
          parallel,
          async ({ entry, known }) => {
            const stamp = await take(entry, known);
            if (stamp !== undefined) seen.push([entry.path, stamp]);
          },
        );
        await stamps.folder(seen);
        return true;
      },
      visit: (entry) => entry.type === 'dir' && !this.excluded(entry.path),
      onSkipped: skip,
      inside: this.inside,
    });
    return writer.finish();
  }

  /**
   * Makes the non-excluded part of the workspace hold exactly the snapshot `ref` of `store`. Into a
   * workspace holding nothing outside the excludes (a sandbox opened from a snapshot), each entry
   * of the snapshot's scan is written as it comes, so memory does not grow with the snapshot.
   */
  async restore(store: SnapshotStore, ref: SnapshotRef): Promise<void> {
    const source: Source<SnapshotEntry> = {
      size: (file) => store.blob(file.blob).size(),
      same: async (file, handle, size) => (await sha256Of(handle, size)) === file.blob,
      sameBytes: (file, data) => createHash('sha256').update(data).digest('hex') === file.blob,
      data: async (file) => store.blob(file.blob).stream(),
      file: (file) => store.blob(file.blob).file,
    };
    if (await this.emptyButExcluded()) await this.write(this.wantedOf(store.scan(ref)), source);
    else await this.sync(store.scan(ref), source);
  }

  /** Makes the non-excluded part of the workspace hold exactly `files`; unchanged files are left alone. */
  async push(files: readonly WorkspaceFile[]): Promise<void> {
    const bytes = (file: WorkspaceFile) =>
      Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength);
    await this.sync(files, {
      size: async (file) => file.data.byteLength,
      same: async (file, handle) => {
        const data = await readWhole(handle, file.data.byteLength);
        return typeof data !== 'string' && bytes(file).equals(data);
      },
      sameBytes: (file, data) => bytes(file).equals(data),
      data: async (file) => bytes(file),
    });
  }

  /**
   * Whether the workspace's root holds nothing but excluded entries (then nothing below it is
   * judged by a restore, and every wanted file is simply written). A name that is not UTF-8 is
   * left to `sync`, which leaves it alone.
   */
  private async emptyButExcluded(): Promise<boolean> {
    const listing = await opendir(this.root, { encoding: 'buffer' as BufferEncoding });
    try {
      for (let dirent = await listing.read(); dirent !== null; dirent = await listing.read()) {
        const raw = dirent.name as unknown as Buffer;
        const name = raw.toString('utf8');
        if (!Buffer.from(name).equals(raw) || !this.excluded(name)) return false;
      }
      return true;
    } finally {
      await listing.close();
    }
  }

  /**
   * The wanted files by workspace path (`..` and `.` resolved), excluded ones left out. The
   * workspace itself is never a file.
   */
  private async *wantedOf<W extends Wanted>(
    files: Iterable<W> | AsyncIterable<W>,
  ): AsyncIterable<readonly [string, W]> {
    for await (const file of files) {
      const rel = this.handle.parts(file.path).join('/');
      if (rel === '') throw new ClassifiedError('sandbox', `path "${file.path}" is the workspace itself`);
      if (!this.excluded(rel)) yield [rel, file];
    }
  }

  /**
   * Makes the non-excluded part of the workspace hold exactly `files` (by workspace path): what
   * differs or is not wanted goes, then what is missing is written. The wanted files are held by
   * path (the walk meets them in its own order); each one found unchanged is let go.
   */
  private async sync<W extends Wanted>(
    files: Iterable<W> | AsyncIterable<W>,
    source: Source<W>,
  ): Promise<void> {
    const missing = new Map<string, W>();
    for await (const [rel, file] of this.wantedOf(files)) missing.set(rel, file);
    const stale: string[] = [];
    const folders: string[] = [];
    await walkWorkspace(this.root, {
      enter: async (_dir, entries) => {
        await pool(
          entries.filter((entry) => entry.type !== 'dir' && !this.excluded(entry.path)),
          parallel,
          async (entry) => {
            if (await this.same(entry, missing.get(entry.path), source)) missing.delete(entry.path);
            else stale.push(entry.path);
          },
        );
        return true;
      },
      visit: (entry) => {
        if (entry.type !== 'dir' || this.excluded(entry.path)) return false;
        folders.push(entry.path);
        return true;
      },
      inside: this.inside,
    });
    await pool(stale, parallel, (rel) => this.handle.remove(rel));
    // Deepest first, so a folder emptied of empty folders goes too.
    for (const rel of folders.reverse()) await this.handle.removeEmptyFolder(rel);
    await this.write(missing, source);
  }

  /** Writes each file at its workspace path, a few at a time, each made anew in its folder's handle. */
  private async write<W extends Wanted>(
    files: Iterable<readonly [string, W]> | AsyncIterable<readonly [string, W]>,
    source: Source<W>,
  ): Promise<void> {
    const writer = new FolderWriter(this.handle);
    try {
      await pool(files, parallel, async ([rel, file]) => {
        const link = (file.mode & typeBits) === symlinkMode;
        const copied = link ? undefined : source.file?.(file);
        if (copied !== undefined) return writer.copyFile(copied, rel, file.mode & 0o7777);
        const data = await source.data(file);
        if (link) {
          const target = await whole(data);
          await writer.symlink(Buffer.from(target).toString('utf8'), rel);
        } else {
          await writer.writeFile(rel, data, file.mode & 0o7777);
        }
      });
    } finally {
      await writer.close();
    }
  }

  /** Whether a workspace entry already is the wanted file (sizes first: another size is never read). */
  private async same<W extends Wanted>(
    entry: WalkEntry,
    want: W | undefined,
    source: Source<W>,
  ): Promise<boolean> {
    if (want === undefined) return false;
    if (entry.type === 'symlink') {
      if (want.mode !== (symlinkMode | 0o777)) return false;
      const target = await whole(await source.data(want));
      return Buffer.from(target).equals(Buffer.from(entry.target ?? ''));
    }
    if (
      entry.type !== 'file' ||
      want.mode !== (entry.mode & 0o7777) ||
      (await source.size(want)) !== entry.size
    )
      return false;
    if (entry.size <= quickBytes) {
      await turnWhenDue();
      const data = entry.readNow();
      if (typeof data === 'string') return false;
      if (data !== undefined) return data.length === entry.size && source.sameBytes(want, data);
    }
    const opened = await entry.open();
    if (typeof opened === 'string') return false;
    try {
      return await source.same(want, opened.file, opened.size);
    } finally {
      await opened.file.close();
    }
  }
}

/** A file a walk entry could not be read for, as a snapshot records it. */
function skipped(entry: WalkEntry, reason: SkipReason): SkippedFile {
  return { path: entry.path, size: entry.size, ...(reason === 'size' ? {} : { reason }) };
}
