import { constants } from 'node:fs';
import {
  type FileHandle,
  lchown,
  lstat,
  mkdir,
  open,
  opendir,
  readlink,
  rmdir,
  symlink,
  unlink,
} from 'node:fs/promises';
import { isAbsolute, posix, relative, resolve, sep } from 'node:path';
import { FileTooLargeError } from '../contracts/sandbox.js';
import { ClassifiedError } from '../contracts/status.js';
import { pool } from './pool.js';

/*
 * How the runner touches a directory an agent can change (its workspace, or a tree it made),
 * without ever leaving it through a link, also while the agent swaps links and directories.
 *
 * A check-then-open (realpath a path, see that it is inside, then open it) has a gap: between the
 * two, a process in the sandbox can swap a directory for a link to `/` (`renameat2` with
 * RENAME_EXCHANGE), and the open lands on the host. So nothing here opens a path whole. Every path
 * is walked one component at a time, each opened relative to the directory handle of the one
 * before, with O_NOFOLLOW: a link is seen as a link, never crossed by the kernel behind our back.
 * Node has no openat(2), so "relative to a handle" is written `/proc/self/fd/<fd>/<name>`: the
 * kernel resolves `/proc/self/fd/<fd>` to the very directory the handle holds (wherever it has
 * been moved meanwhile) and looks up the single `name` in it, which O_NOFOLLOW (or the call's own
 * no-follow semantics: lstat, readlink, unlink, rmdir, mkdir, symlink) keeps from being followed.
 * A link inside the workspace is followed by reading it and walking its target the same way, from
 * the handles already held, so a target that climbs out or is absolute outside is refused.
 *
 * Why not a helper process inside the sandbox: it would need a runtime inside every sandbox, could
 * not serve plain mode (where nothing is mounted away), and would add a protocol to keep alive.
 * Handles work the same in both modes; in plain mode they at least never follow a link out.
 */

const { O_RDONLY, O_WRONLY, O_CREAT, O_TRUNC, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;
/** Linux's O_PATH: a handle to look names up in, without read permission (Node does not export it). */
const O_PATH = 0o10000000;
/** Links followed on one path before giving up, as Linux does (its MAXSYMLINKS). */
const maxHops = 40;
/** FIFOs and devices open without blocking; fstat then refuses them. */
const readFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
const writeFlags = O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
/** As writeFlags without truncating: a file to give an owner is judged before it changes. */
const createFlags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
const dirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

/** The name `name` inside the directory a handle holds, as a path the kernel resolves there. */
export function inHandle(dir: FileHandle, name?: string | Buffer): string | Buffer {
  const base = `/proc/self/fd/${dir.fd}`;
  if (name === undefined) return base;
  return typeof name === 'string' ? `${base}/${name}` : Buffer.concat([Buffer.from(`${base}/`), name]);
}

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function outside(path: string): ClassifiedError {
  return new ClassifiedError('sandbox', `path "${path}" is outside the workspace`);
}

function notFound(path: string): Error {
  return Object.assign(new Error(`ENOENT: no such file or directory, "${path}" in the workspace`), {
    code: 'ENOENT',
  });
}

/** Host ids that what the runner makes in the workspace gets (the sandbox's user, seen from the host). */
export interface WorkspaceOwner {
  uid: number;
  gid: number;
}

export interface WorkspaceHandleOptions {
  /** The workspace's path inside the sandbox, when it is not `root` (a container's volume). */
  inside?: string;
  /** Who owns the files, folders and links the runner makes; default: the runner. */
  owner?: WorkspaceOwner;
}

/** Where a path ends up: the handle of its folder and the last name (none for the root itself). */
interface Located {
  dir: FileHandle;
  name: string | undefined;
  /** The path of `dir` inside the workspace, as components. */
  parts: string[];
  close(): Promise<void>;
}

/** How `locate` treats the components of a path. */
interface LocateOptions {
  /** Follow a link in the last component (when it stays inside). */
  followLast: boolean;
  /** Make missing folders on the way. */
  create?: boolean;
}

/**
 * A directory of the host (a workspace) whose paths are only ever opened beneath it. Paths are
 * workspace-relative or absolute inside `root`; `..` that climbs out, absolute paths elsewhere and
 * links leading out are refused with a ClassifiedError of class `sandbox`.
 */
export class WorkspaceHandle {
  /** The workspace as the sandbox's processes see it: absolute paths and links are judged against it. */
  readonly inside: string;
  private readonly owner: WorkspaceOwner | undefined;

  constructor(
    /** Absolute and free of links (a realpath): where the runner opens the workspace. */
    readonly root: string,
    options: WorkspaceHandleOptions = {},
  ) {
    this.inside = options.inside ?? root;
    this.owner = options.owner;
  }

  /**
   * Gives a folder just made in `dir` to the owner, through a handle of its own: what is there by
   * then (a process of the sandbox may have swapped it) is opened without following a link, and
   * only a folder is taken.
   */
  private async own(dir: FileHandle, name: string): Promise<void> {
    if (!this.owner) return;
    const made = await open(inHandle(dir, name), dirFlags);
    try {
      await made.chown(this.owner.uid, this.owner.gid);
    } finally {
      await made.close();
    }
  }

  /** The components of `path` inside the workspace, `..` resolved by name as the caller wrote it. */
  parts(path: string): string[] {
    const abs = isAbsolute(path) ? resolve(path) : resolve(this.inside, path);
    const rel = relative(this.inside, abs);
    if (rel === '') return [];
    if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw outside(path);
    return rel.split(sep);
  }

  /** The workspace-relative path of `parts`, with `/`. */
  static join(parts: readonly string[]): string {
    return parts.join('/');
  }

  private async openRoot(): Promise<FileHandle> {
    return open(this.root, O_PATH | O_DIRECTORY | O_NOFOLLOW);
  }

  /**
   * Walks `path` from the root handle, component by component. Links on the way (and in the last
   * component with `followLast`) are read and their targets walked in turn, within the workspace.
   */
  private async locate(path: string, options: LocateOptions): Promise<Located> {
    const todo = this.parts(path);
    const stack: FileHandle[] = [await this.openRoot()];
    const parts: string[] = [];
    const close = async () => {
      await Promise.all(stack.splice(0).map((handle) => handle.close().catch(() => undefined)));
    };
    try {
      let hops = 0;
      for (;;) {
        const name = todo.shift();
        if (name === undefined) {
          const dir = stack.pop()!;
          const last = parts.pop();
          if (last === undefined) return { dir, name: undefined, parts, close: () => dir.close() };
          // The walk ended on a folder: hand back its parent and its name, like any other path.
          await dir.close();
          const parent = stack[stack.length - 1]!;
          return { dir: parent, name: last, parts, close };
        }
        if (name === '' || name === '.') continue;
        if (name === '..') {
          if (stack.length === 1) throw outside(path);
          await stack.pop()!.close();
          parts.pop();
          continue;
        }
        const dir = stack[stack.length - 1]!;
        if (todo.length === 0 && !options.followLast) return { dir, name, parts, close };
        let handle: FileHandle;
        try {
          handle = await open(inHandle(dir, name), O_PATH | O_NOFOLLOW);
        } catch (error) {
          if (code(error) !== 'ENOENT') throw error;
          if (todo.length === 0) return { dir, name, parts, close };
          if (!options.create) throw notFound(path);
          await this.makeFolder(dir, name);
          todo.unshift(name);
          continue;
        }
        const stat = await handle.stat().catch(async (error: unknown) => {
          await handle.close();
          throw error;
        });
        if (stat.isDirectory()) {
          stack.push(handle);
          parts.push(name);
          continue;
        }
        await handle.close();
        if (!stat.isSymbolicLink()) {
          if (todo.length === 0) return { dir, name, parts, close };
          throw Object.assign(
            new Error(`ENOTDIR: "${path}": ${[...parts, name].join('/')} is not a folder`),
            {
              code: 'ENOTDIR',
            },
          );
        }
        if (++hops > maxHops) {
          throw new ClassifiedError('sandbox', `path "${path}": too many levels of links (ELOOP)`);
        }
        const target = await readlink(inHandle(dir, name), 'utf8');
        if (isAbsolute(target)) {
          const rel = relative(this.inside, resolve(target));
          if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw outside(path);
          await Promise.all(stack.splice(1).map((held) => held.close()));
          parts.splice(0);
          todo.unshift(...(rel === '' ? [] : rel.split(sep)));
        } else {
          todo.unshift(...target.split('/'));
        }
      }
    } catch (error) {
      await close();
      throw error;
    }
  }

  private async at<T>(path: string, options: LocateOptions, use: (found: Located) => Promise<T>): Promise<T> {
    const found = await this.locate(path, options);
    try {
      return await use(found);
    } finally {
      await found.close();
    }
  }

  /** The path inside the workspace that `path` names once links in it are followed ('' for the root). */
  async real(path: string): Promise<string> {
    return this.at(path, { followLast: true }, async ({ parts, name }) =>
      name === undefined ? WorkspaceHandle.join(parts) : WorkspaceHandle.join([...parts, name]),
    );
  }

  /** The bytes of a regular file; links are followed inside the workspace. */
  /** A file's bytes; one larger than `maxBytes` is refused unread (FileTooLargeError). */
  async readFile(path: string, maxBytes = Number.POSITIVE_INFINITY): Promise<Buffer> {
    return this.at(path, { followLast: true }, async ({ dir, name }) => {
      if (name === undefined) throw new ClassifiedError('sandbox', `"${path}" is the workspace, not a file`);
      const { file, size } = await openFile(dir, name, readFlags, path);
      try {
        const read = await readOpened(file, maxBytes, size);
        if ('size' in read) throw new FileTooLargeError(path, read.size, maxBytes);
        return read.data;
      } finally {
        await file.close();
      }
    });
  }

  /**
   * Writes a regular file, making its folders; a link in the way is followed inside the workspace
   * only. Chunks (a stored file's stream) are written as they come. With an owner, the file is the
   * owner's before a byte is written, and one of another user that has other names (a hard link to
   * a file outside the workspace) is refused, never written or given away.
   */
  async writeFile(
    path: string,
    data: string | Uint8Array | AsyncIterable<Uint8Array>,
    mode?: number,
  ): Promise<void> {
    await this.at(path, { followLast: true, create: true }, async ({ dir, name }) => {
      if (name === undefined) throw new ClassifiedError('sandbox', 'cannot write over the workspace itself');
      const { file } = await openFile(dir, name, this.owner ? createFlags : writeFlags, path);
      try {
        if (this.owner) await this.takeOver(file, path);
        if (typeof data === 'string' || data instanceof Uint8Array) await file.writeFile(data);
        else for await (const chunk of data) await file.write(chunk);
        if (mode !== undefined) await file.chmod(mode);
      } finally {
        await file.close();
      }
    });
  }

  /** Gives an open file to the owner and empties it: refused for another user's file with other names. */
  private async takeOver(file: FileHandle, path: string): Promise<void> {
    const owner = this.owner!;
    const stat = await file.stat();
    if (stat.uid !== owner.uid || stat.gid !== owner.gid) {
      if (stat.nlink > 1)
        throw Object.assign(
          new ClassifiedError('sandbox', `"${path}" is a hard link to a file of another user; refused`),
          { reason: 'link' },
        );
      await file.chown(owner.uid, owner.gid);
    }
    await file.truncate(0);
  }

  /** Makes a link at `path` (its folders too), holding `target` as it is. */
  async symlink(target: string, path: string): Promise<void> {
    await this.at(path, { followLast: false, create: true }, async ({ dir, name }) => {
      if (name === undefined) throw new ClassifiedError('sandbox', 'cannot write over the workspace itself');
      await symlink(target, inHandle(dir, name));
      if (this.owner) await lchown(inHandle(dir, name), this.owner.uid, this.owner.gid);
    });
  }

  /**
   * Removes a file, a link (not what it points to) or a folder with everything in it; a missing
   * path is no error. Folders are emptied through handles too, so a folder swapped for a link
   * while it is being emptied stops the removal instead of redirecting it.
   */
  async remove(path: string): Promise<void> {
    // The walk to the folder holds a handle per level of `path`; below it, `removeEntry` two.
    try {
      await this.at(path, { followLast: false }, async ({ dir, name }) => {
        if (name === undefined) throw new ClassifiedError('sandbox', 'cannot remove the workspace itself');
        await removeEntry(dir, name);
      });
    } catch (error) {
      if (code(error) !== 'ENOENT') throw error;
    }
  }

  /** Removes the folder at `path` if it is empty (and a folder); anything else stays. */
  async removeEmptyFolder(path: string): Promise<void> {
    await this.at(path, { followLast: false }, async ({ dir, name }) => {
      if (name === undefined) return;
      await rmdir(inHandle(dir, name)).catch((error: unknown) => {
        if (!['ENOTEMPTY', 'EEXIST', 'ENOENT', 'ENOTDIR'].includes(code(error) ?? '')) throw error;
      });
    });
  }

  /**
   * A handle on the folder `path` names (links followed inside), made with its parents when
   * missing; the caller closes it. Files are then made in it by name (see FolderWriter).
   */
  async openFolder(path: string): Promise<FileHandle> {
    if (this.parts(path).length === 0) return open(this.root, dirFlags);
    return this.at(path, { followLast: true, create: true }, async ({ dir, name }) => {
      if (name === undefined) return open(this.root, dirFlags);
      try {
        return await open(inHandle(dir, name), dirFlags);
      } catch (error) {
        if (code(error) !== 'ENOENT') throw error;
      }
      await this.makeFolder(dir, name);
      return open(inHandle(dir, name), dirFlags);
    });
  }

  /** Makes the folder `name` in `dir` unless something is there, owned as the workspace wants. */
  private async makeFolder(dir: FileHandle, name: string): Promise<void> {
    const made = await mkdir(inHandle(dir, name)).then(
      () => true,
      (error: unknown) => {
        if (code(error) !== 'EEXIST') throw error;
        return false;
      },
    );
    if (made) await this.own(dir, name);
  }

  /** Who owns what the runner makes here, when it is not the runner. */
  get madeFor(): WorkspaceOwner | undefined {
    return this.owner;
  }

  /**
   * Opens the folder `path` names (links followed inside) for `use`, or gives undefined to
   * `notFolder` with what the path holds when it is no folder.
   */
  async folder<T>(
    path: string,
    use: (dir: FileHandle, parts: string[]) => Promise<T>,
    notFolder: (parent: FileHandle, name: string, parts: string[]) => Promise<T>,
  ): Promise<T> {
    return this.at(path, { followLast: true }, async ({ dir, name, parts }) => {
      if (name === undefined) return use(dir, parts);
      let folder: FileHandle;
      try {
        folder = await open(inHandle(dir, name), dirFlags);
      } catch (error) {
        if (code(error) === 'ENOTDIR' || code(error) === 'ELOOP') return notFolder(dir, name, parts);
        throw error;
      }
      try {
        return await use(folder, [...parts, name]);
      } finally {
        await folder.close();
      }
    });
  }
}

/**
 * Opens a regular file in `dir` without following a link and without blocking on a FIFO; anything
 * but a regular file is refused.
 */
/** A regular file opened, with the size its fstat gave (so that no one asks again). */
export interface OpenedFile {
  file: FileHandle;
  size: number;
}

export async function openFile(
  dir: FileHandle,
  name: string | Buffer,
  flags: number,
  path: string,
): Promise<OpenedFile> {
  let file: FileHandle;
  try {
    file = await open(inHandle(dir, name), flags, 0o666);
  } catch (error) {
    // The probe saw no link here, so one appeared since: the agent is racing the runner.
    if (code(error) === 'ELOOP')
      throw Object.assign(
        new ClassifiedError('sandbox', `"${path}" became a link while it was opened; refused`),
        { reason: 'link' },
      );
    throw error;
  }
  try {
    const stat = await file.stat();
    if (!stat.isFile())
      throw Object.assign(new ClassifiedError('sandbox', `"${path}" is not a regular file`), {
        reason: 'type',
      });
    return { file, size: stat.size };
  } catch (error) {
    await file.close();
    throw error;
  }
}

/**
 * An open regular file's bytes, or its size when that is over `limit` (nothing is read then). A
 * file that grows while it is read is taken at the size it had when opened, so no more than
 * `limit` bytes are ever held.
 */
export async function readOpened(
  file: FileHandle,
  limit: number,
  /** Its size when the caller has it from an fstat of this handle. */
  known?: number,
): Promise<{ data: Buffer } | { size: number }> {
  const size = known ?? (await file.stat()).size;
  if (size > limit) return { size };
  const buffer = Buffer.alloc(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await file.read(buffer, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return { data: buffer.subarray(0, filled) };
}

/** Unlinks in flight at once while a folder is emptied: enough to keep the thread pool busy on a slow disk. */
const unlinking = 32;

/** A folder's identity, to know it again after climbing back to it through `..`. */
interface Level {
  name: Buffer | string;
  dev: number;
  ino: number;
}

async function firstNames(folder: FileHandle, count: number): Promise<Buffer[]> {
  const names: Buffer[] = [];
  const listing = await opendir(inHandle(folder) as string, {
    encoding: 'buffer' as BufferEncoding,
    bufferSize: Math.min(count, 1024),
  });
  for await (const entry of listing) {
    names.push(entry.name as unknown as Buffer);
    if (names.length >= count) break;
  }
  return names;
}

/**
 * Removes `name` in `dir`, a folder with everything below it. Two handles at most are open at a
 * time, whatever the depth (a tree 10,000 levels deep has paths no path-based removal can name):
 * it goes down by handles and back up through `..`, checking that `..` is the folder it came from
 * (device and inode), so a folder moved away meanwhile stops the removal instead of redirecting it.
 */
export async function removeEntry(dir: FileHandle, name: string | Buffer): Promise<void> {
  try {
    await unlink(inHandle(dir, name));
    return;
  } catch (error) {
    if (code(error) === 'ENOENT') return;
    if (code(error) !== 'EISDIR' && code(error) !== 'EPERM') throw error;
  }
  const parent = await dir.stat();
  const levels: Level[] = [];
  let current: FileHandle | undefined;
  const descend = async (from: FileHandle, child: Buffer | string): Promise<boolean> => {
    let next: FileHandle;
    try {
      next = await open(inHandle(from, child), dirFlags);
    } catch (error) {
      if (code(error) === 'ENOENT') return false;
      throw error;
    }
    const stat = await next.stat();
    levels.push({ name: child, dev: stat.dev, ino: stat.ino });
    if (current !== undefined && current !== dir) await current.close();
    current = next;
    return true;
  };
  try {
    if (!(await descend(dir, name))) return;
    while (current !== undefined) {
      // A batch of names is unlinked `unlinking` at a time (a folder of a million files goes at
      // the pace of the thread pool, not of one call's round trip); its folders are entered after.
      // A failure stops the batch once no call is in flight: none may outlive the folder's handle.
      const folder = current;
      const folders: Buffer[] = [];
      let failure: { error: unknown } | undefined;
      await pool(await firstNames(folder, 1024), unlinking, async (child) => {
        if (failure) return;
        try {
          await unlink(inHandle(folder, child));
        } catch (error) {
          if (code(error) === 'ENOENT') return;
          if (code(error) === 'EISDIR' || code(error) === 'EPERM') folders.push(child);
          else failure = { error };
        }
      });
      if (failure) throw failure.error;
      let entered = false;
      for (const child of folders) {
        entered = await descend(folder, child);
        if (entered) break;
      }
      if (entered) continue;
      if ((await firstNames(current, 1)).length > 0) continue;
      // Empty: climb to its parent (the handle held, or `..` checked) and remove it there.
      const done = levels.pop()!;
      const above = levels[levels.length - 1] ?? { dev: parent.dev, ino: parent.ino };
      const up = levels.length === 0 ? dir : await open(inHandle(current, '..'), dirFlags);
      const seen = await up.stat();
      await current.close();
      current = undefined;
      if (seen.dev !== above.dev || seen.ino !== above.ino) {
        if (up !== dir) await up.close();
        throw new ClassifiedError(
          'sandbox',
          'a folder was moved while it was being removed; removal stopped',
        );
      }
      await rmdir(inHandle(up, done.name)).catch((error: unknown) => {
        if (code(error) !== 'ENOENT') throw error;
      });
      current = up === dir ? undefined : up;
    }
  } finally {
    if (current !== undefined && current !== dir) await current.close();
  }
}

/** lstat of a name inside a folder handle: never follows it. */
export function lstatIn(dir: FileHandle, name: string | Buffer) {
  return lstat(inHandle(dir, name));
}

/** Whether `target`, a link's text at `path` (workspace-relative), points outside the workspace. */
export function linkLeaves(path: string, target: string, workspace: string): boolean {
  if (posix.isAbsolute(target)) {
    const rel = posix.relative(workspace, posix.normalize(target));
    return rel === '..' || rel.startsWith('../') || posix.isAbsolute(rel);
  }
  const joined = posix.normalize(posix.join(posix.dirname(path), target));
  return joined === '..' || joined.startsWith('../');
}

export { dirFlags, readFlags };
