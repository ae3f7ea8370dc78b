import { closeSync, fstatSync, lstatSync, openSync, readlinkSync, readSync, type Stats } from 'node:fs';
import { type FileHandle, open, opendir, realpath } from 'node:fs/promises';
import type { SkippedFile } from '../contracts/sandbox.js';
import { quickBytes, turnWhenDue } from './event-loop-turns.js';
import {
  dirFlags,
  inHandle,
  type OpenedFile,
  openFile,
  readFlags,
  readOpened,
  WorkspaceHandle,
} from './workspace-handle.js';

/** Why a walk left an entry out (see SkippedFile.reason). */
export type SkipReason = NonNullable<SkippedFile['reason']>;

/** An entry a walk left out, and why. */
export interface WalkSkip {
  path: string;
  size: number;
  reason: SkipReason;
}

/** One entry of a walk. Links are entries of their own: a walk never follows one. */
export interface WalkEntry {
  /** Relative to the walk's root, with `/`. */
  path: string;
  /** `special` is a FIFO, a socket or a device node. */
  type: 'file' | 'dir' | 'symlink' | 'special';
  /** The lstat mode (type bits included). */
  mode: number;
  size: number;
  /**
   * The lstat's inode and change times: with size and mode, what tells a file unchanged since an
   * earlier walk without reading it (ctime cannot be set back by a process without the host's clock).
   */
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  /** A link's target, as written. */
  target?: string;
  /**
   * A regular file's bytes, or why they were not read: over `limit` bytes (`size`), no longer a
   * regular file (`type`, `link`) or not readable (`unreadable`). Opened relative to its folder's
   * handle, never through a link; callable while the walk is in its folder (from `enter` or `visit`).
   */
  read(limit?: number): Promise<Uint8Array | SkipReason>;
  /**
   * A regular file opened for reading (the caller closes it), or why not, as `read` says; callable
   * while the walk is in its folder.
   */
  open(): Promise<OpenedFile | SkipReason>;
  /**
   * A small regular file's bytes read at once with synchronous calls (see turnWhenDue), why they
   * were not read as `read` says, or undefined when the file is over `quickBytes` (read it with
   * `read` or `open` then). Callable while the walk is in its folder.
   */
  readNow(limit?: number): Uint8Array | SkipReason | undefined;
}

export interface WalkOptions {
  /**
   * Called with every folder's entries (the root's too, path '') before they are visited; false
   * leaves the folder's content out (a virtualenv, say).
   */
  enter?(dir: string, entries: readonly WalkEntry[]): boolean | Promise<boolean>;
  /** Called for every entry; false for a folder leaves it out (an excluded folder). */
  // biome-ignore lint/suspicious/noConfusingVoidType: an async visitor that returns nothing gives Promise<void>
  visit(entry: WalkEntry): boolean | undefined | Promise<boolean | undefined | void>;
  /** Told of everything left out: names that are not UTF-8, folders too deep, the rest past the entry limit. */
  onSkipped?(skip: WalkSkip): void;
  /** Folders below this depth are skipped (each level of a walk holds a handle). Default 256. */
  maxDepth?: number;
  /** After this many entries the walk stops, noting the folder it stopped in. Default 200,000. */
  maxEntries?: number;
  /** The workspace's path inside the sandbox, when `root` is where the runner sees it (see WorkspaceHandle). */
  inside?: string;
}

export const defaultWalkDepth = 256;
export const defaultWalkEntries = 200_000;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function typeOf(stat: Stats): WalkEntry['type'] {
  if (stat.isSymbolicLink()) return 'symlink';
  if (stat.isDirectory()) return 'dir';
  if (stat.isFile()) return 'file';
  return 'special';
}

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

class Stop extends Error {}

/**
 * Walks the tree below `path` of a workspace (or any directory an agent may have changed) without
 * following links, each folder opened relative to its parent's handle (see WorkspaceHandle), so a
 * folder swapped for a link mid-walk is never entered. Loops, links to `/`, FIFOs, sockets and
 * devices cost one entry each; names that are not UTF-8 are skipped and reported; depth and entry
 * count are bounded, so time and memory are too.
 */
export async function walkWorkspace(root: string, options: WalkOptions, path = ''): Promise<void> {
  const workspace = new WorkspaceHandle(await realpath(root), { inside: options.inside });
  const maxDepth = options.maxDepth ?? defaultWalkDepth;
  const maxEntries = options.maxEntries ?? defaultWalkEntries;
  let seen = 0;

  const entriesOf = async (dir: FileHandle, prefix: string): Promise<WalkEntry[]> => {
    const entries: WalkEntry[] = [];
    const listing = await opendir(inHandle(dir) as string, { encoding: 'buffer' as BufferEncoding });
    for await (const dirent of listing) {
      const raw = dirent.name as unknown as Buffer;
      let name: string;
      try {
        name = strictUtf8.decode(raw);
      } catch {
        const shown = `${prefix}${raw.toString('utf8')}`;
        options.onSkipped?.({ path: shown, size: 0, reason: 'name' });
        continue;
      }
      if (++seen > maxEntries) {
        options.onSkipped?.({ path: prefix.replace(/\/$/, ''), size: 0, reason: 'count' });
        throw new Stop();
      }
      // One synchronous lstat per name (see turnWhenDue): the thread pool would cost more than the call.
      await turnWhenDue();
      let stat: Stats;
      try {
        stat = lstatSync(inHandle(dir, name));
      } catch (error) {
        if (code(error) === 'ENOENT') continue;
        throw error;
      }
      const type = typeOf(stat);
      const entryPath = `${prefix}${name}`;
      entries.push({
        path: entryPath,
        type,
        mode: stat.mode,
        size: stat.size,
        ino: stat.ino,
        mtimeMs: stat.mtimeMs,
        ctimeMs: stat.ctimeMs,
        target: type === 'symlink' ? readlinkOr(inHandle(dir, name) as string) : undefined,
        read: (limit) => readIn(dir, name, entryPath, limit),
        open: () => openIn(dir, name, entryPath),
        readNow: (limit) => readNowIn(dir, name, limit),
      });
    }
    return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  };

  const walkDir = async (dir: FileHandle, rel: string, depth: number): Promise<void> => {
    const prefix = rel === '' ? '' : `${rel}/`;
    const entries = await entriesOf(dir, prefix);
    if (options.enter && !(await options.enter(rel, entries))) return;
    // A folder's own entries are all visited before any folder in it is entered, so the entry limit
    // cuts the deepest and latest parts of a huge tree, never the files beside it (a main.py
    // beside a folder of a million files is kept).
    const folders: WalkEntry[] = [];
    for (const entry of entries) {
      const descend = await options.visit(entry);
      if (entry.type === 'dir' && descend !== false) folders.push(entry);
    }
    for (const entry of folders) {
      if (depth >= maxDepth) {
        options.onSkipped?.({ path: entry.path, size: 0, reason: 'depth' });
        continue;
      }
      const name = entry.path.slice(prefix.length);
      let child: FileHandle;
      try {
        child = await open(inHandle(dir, name), dirFlags);
      } catch (error) {
        // Gone, or swapped for a link or a file since it was listed: not entered.
        if (['ENOENT', 'ENOTDIR', 'ELOOP'].includes(code(error) ?? '')) continue;
        if (code(error) === 'EACCES') {
          options.onSkipped?.({ path: entry.path, size: 0, reason: 'unreadable' });
          continue;
        }
        throw error;
      }
      try {
        await walkDir(child, entry.path, depth + 1);
      } finally {
        await child.close();
      }
    }
  };

  try {
    await workspace.folder(
      path,
      (dir, parts) => walkDir(dir, WorkspaceHandle.join(parts), parts.length),
      async (_parent, name) => {
        throw Object.assign(new Error(`ENOTDIR: "${path}" (${name}) is not a folder`), { code: 'ENOTDIR' });
      },
    );
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
  }
}

function readlinkOr(path: string): string {
  try {
    return readlinkSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Why a file could not be opened for reading, as a walk entry says it (see WalkEntry.read). */
function openFailure(error: unknown): SkipReason | undefined {
  if (code(error) === 'ELOOP') return 'link';
  if (code(error) === 'ENOENT' || code(error) === 'ENXIO') return 'type';
  if (code(error) === 'EACCES' || code(error) === 'EPERM') return 'unreadable';
  return undefined;
}

/** A small regular file's bytes through its folder's handle, synchronously; see WalkEntry.readNow. */
function readNowIn(
  dir: FileHandle,
  name: string,
  limit = Number.POSITIVE_INFINITY,
): Uint8Array | SkipReason | undefined {
  let fd: number;
  try {
    fd = openSync(inHandle(dir, name), readFlags);
  } catch (error) {
    const reason = openFailure(error);
    if (reason === undefined) throw error;
    return reason;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return 'type';
    if (stat.size > limit) return 'size';
    if (stat.size > quickBytes) return undefined;
    // Taken at the size it had when opened, as readWhole takes it.
    const buffer = Buffer.alloc(stat.size);
    let filled = 0;
    while (filled < stat.size) {
      const read = readSync(fd, buffer, filled, stat.size - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return buffer.subarray(0, filled);
  } catch (error) {
    if (code(error) === 'EISDIR' || code(error) === 'EIO') return 'unreadable';
    throw error;
  } finally {
    closeSync(fd);
  }
}

/** A regular file opened through its folder's handle; see WalkEntry.open. */
async function openIn(dir: FileHandle, name: string, path: string): Promise<OpenedFile | SkipReason> {
  try {
    return await openFile(dir, name, readFlags, path);
  } catch (error) {
    const reason = (error as { reason?: SkipReason }).reason ?? openFailure(error);
    if (reason !== undefined) return reason;
    throw error;
  }
}

/** A regular file's bytes through its folder's handle; see WalkEntry.read. */
async function readIn(
  dir: FileHandle,
  name: string,
  path: string,
  limit = Number.POSITIVE_INFINITY,
): Promise<Uint8Array | SkipReason> {
  const opened = await openIn(dir, name, path);
  if (typeof opened === 'string') return opened;
  try {
    return await readWhole(opened.file, limit, opened.size);
  } finally {
    await opened.file.close();
  }
}

/**
 * The bytes of a file opened for reading, or `size` when it is over `limit`, `unreadable` when it
 * cannot be read. A file that grows while it is read is taken at the size it had when opened.
 */
export async function readWhole(
  file: FileHandle,
  limit = Number.POSITIVE_INFINITY,
  /** Its size when the caller has it from an fstat of this handle. */
  size?: number,
): Promise<Uint8Array | SkipReason> {
  try {
    const read = await readOpened(file, limit, size);
    return 'data' in read ? read.data : 'size';
  } catch (error) {
    if (code(error) === 'EISDIR' || code(error) === 'EIO') return 'unreadable';
    throw error;
  }
}

/**
 * The first `size` bytes of a file opened for reading, in chunks of `chunkBytes` read as they
 * are consumed: one chunk in memory at a time.
 */
export async function* chunksOf(
  file: FileHandle,
  size: number,
  chunkBytes = 1024 * 1024,
): AsyncGenerator<Uint8Array> {
  let offset = 0;
  while (offset < size) {
    const buffer = Buffer.allocUnsafe(Math.min(chunkBytes, size - offset));
    const { bytesRead } = await file.read(buffer, 0, buffer.length, offset);
    if (bytesRead === 0) return;
    offset += bytesRead;
    yield buffer.subarray(0, bytesRead);
  }
}

/**
 * The regular files below `root` (a task's folder, a solution), relative with `/` and sorted:
 * links are not followed, FIFOs, sockets and devices are left out.
 */
export async function regularFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  await walkWorkspace(root, {
    visit: (entry) => {
      if (entry.type === 'file') files.push(entry.path);
      return undefined;
    },
  });
  return files.sort();
}
