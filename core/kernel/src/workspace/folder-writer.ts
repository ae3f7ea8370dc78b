import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  openSync,
  readSync,
  writeSync,
} from 'node:fs';
import { copyFile, type FileHandle, lchown, open, symlink } from 'node:fs/promises';
import { ClassifiedError } from '../contracts/status.js';
import { quickBytes, turnWhenDue } from './event-loop-turns.js';
import { inHandle, removeEntry, type WorkspaceHandle } from './workspace-handle.js';

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;
/** A new regular file, never whatever is there: with O_EXCL even a link at the name is refused. */
const createFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
/** A copy just made, opened to set its mode and owner: a link swapped in meanwhile is refused. */
const copiedFlags = O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
/** Folder handles held at once; folders come in path order, so few are in use at a time. */
const maxHeld = 64;

interface Held {
  handle: Promise<FileHandle>;
  users: number;
}

/** A host file's bytes when it is at most quickBytes long, read with synchronous calls. */
function readSmall(path: string): Buffer | undefined {
  const file = openSync(path, 'r');
  try {
    const size = fstatSync(file).size;
    if (size > quickBytes) return undefined;
    const data = Buffer.alloc(size);
    let filled = 0;
    while (filled < size) {
      const read = readSync(file, data, filled, size - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return data.subarray(0, filled);
  } finally {
    closeSync(file);
  }
}

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Writes many files and links into a workspace (a restore), each made anew by name in its
 * folder's handle. The handles of recent folders are kept, so a file costs its own few system
 * calls instead of a walk from the workspace's root to it (one open and one stat per folder on
 * the way, twice with the removal before it). Folders are opened as WorkspaceHandle opens them:
 * links followed only inside the workspace, missing ones made.
 */
export class FolderWriter {
  private readonly held = new Map<string, Held>();

  constructor(private readonly workspace: WorkspaceHandle) {}

  /** Replaces what is at `path` (workspace-relative, normalized) with a regular file of `data`. */
  async writeFile(path: string, data: Uint8Array | AsyncIterable<Uint8Array>, mode: number): Promise<void> {
    await this.inFolder(path, async (dir, name) => {
      const file = await this.create(dir, name);
      try {
        if (data instanceof Uint8Array) await file.writeFile(data);
        else for await (const chunk of data) await file.write(chunk);
        const owner = this.workspace.madeFor;
        if (owner) await file.chown(owner.uid, owner.gid);
        await file.chmod(mode);
      } finally {
        await file.close();
      }
    });
  }

  /**
   * Replaces what is at `path` with a copy of the host file `source` (a stored blob), copied by
   * the kernel: one call instead of reading and writing it here. The copy is made anew (never
   * through a link at the name), then given `mode` and the workspace's owner through a handle.
   * A small file (up to quickBytes) is read and written here instead (see copySmallFile).
   */
  async copyFile(source: string, path: string, mode: number): Promise<void> {
    const small = readSmall(source);
    if (small !== undefined) return this.copySmallFile(small, path, mode);
    await this.inFolder(path, async (dir, name) => {
      const target = inHandle(dir, name) as string;
      try {
        await copyFile(source, target, constants.COPYFILE_EXCL);
      } catch (error) {
        if (code(error) !== 'EEXIST') throw error;
        await removeEntry(dir, name);
        await copyFile(source, target, constants.COPYFILE_EXCL);
      }
      const owner = this.workspace.madeFor;
      const file = await open(target, copiedFlags);
      try {
        const stat = await file.stat();
        if (!stat.isFile())
          throw new ClassifiedError('sandbox', `"${path}" was replaced while it was restored`);
        if (owner) await file.chown(owner.uid, owner.gid);
        // The copy has the blob's mode; chown clears set-id bits, so the mode goes after it.
        if (owner || (stat.mode & 0o7777) !== mode) await file.chmod(mode);
      } finally {
        await file.close();
      }
    });
  }

  /**
   * copyFile for a small file, with synchronous calls (see turnWhenDue): the blob is read whole
   * and written into a file made anew with its owner and mode, ten calls a file where the kernel's
   * copy and setting the owner after it took fifteen (a restore of 100,000 files spent its time
   * there).
   */
  private async copySmallFile(data: Buffer, path: string, mode: number): Promise<void> {
    await this.inFolder(path, async (dir, name) => {
      await turnWhenDue();
      const target = inHandle(dir, name) as string;
      let file: number;
      try {
        file = openSync(target, createFlags, 0o600);
      } catch (error) {
        if (code(error) !== 'EEXIST') throw error;
        await removeEntry(dir, name);
        file = openSync(target, createFlags, 0o600);
      }
      try {
        const owner = this.workspace.madeFor;
        if (owner) fchownSync(file, owner.uid, owner.gid);
        // After the owner: chown clears set-id bits.
        fchmodSync(file, mode);
        let written = 0;
        while (written < data.length) written += writeSync(file, data, written);
      } finally {
        closeSync(file);
      }
    });
  }

  /** Replaces what is at `path` with a link holding `target` as it is. */
  async symlink(target: string, path: string): Promise<void> {
    await this.inFolder(path, async (dir, name) => {
      await removeEntry(dir, name);
      await symlink(target, inHandle(dir, name));
      const owner = this.workspace.madeFor;
      if (owner) await lchown(inHandle(dir, name), owner.uid, owner.gid);
    });
  }

  /** Closes every folder handle held. */
  async close(): Promise<void> {
    const held = [...this.held.values()];
    this.held.clear();
    await Promise.all(
      held.map((entry) => entry.handle.then((handle) => handle.close()).catch(() => undefined)),
    );
  }

  /** A new file at `name`: what was there (a file, a link, a folder) goes first. */
  private async create(dir: FileHandle, name: string): Promise<FileHandle> {
    try {
      return await open(inHandle(dir, name), createFlags, 0o600);
    } catch (error) {
      if (code(error) !== 'EEXIST') throw error;
    }
    await removeEntry(dir, name);
    return open(inHandle(dir, name), createFlags, 0o600);
  }

  private async inFolder<T>(path: string, use: (dir: FileHandle, name: string) => Promise<T>): Promise<T> {
    const slash = path.lastIndexOf('/');
    const folder = slash < 0 ? '' : path.slice(0, slash);
    let entry = this.held.get(folder);
    if (entry === undefined) {
      const opened: Held = { handle: this.workspace.openFolder(folder), users: 0 };
      // A folder that could not be opened is asked again next time, not remembered failing.
      opened.handle.catch(() => {
        if (this.held.get(folder) === opened) this.held.delete(folder);
      });
      entry = opened;
      this.held.set(folder, entry);
    } else {
      // Most recently used last, so the oldest idle handles are the ones closed.
      this.held.delete(folder);
      this.held.set(folder, entry);
    }
    entry.users++;
    try {
      return await use(await entry.handle, path.slice(slash + 1));
    } finally {
      entry.users--;
      await this.evict();
    }
  }

  /** Closes the least recently used handles no write is using, past `maxHeld`. */
  private async evict(): Promise<void> {
    for (const [folder, entry] of this.held) {
      if (this.held.size <= maxHeld) return;
      if (entry.users > 0) continue;
      this.held.delete(folder);
      await entry.handle.then((handle) => handle.close()).catch(() => undefined);
    }
  }
}
