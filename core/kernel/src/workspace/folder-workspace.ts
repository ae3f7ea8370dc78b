import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileEntry, PullOptions, ReadFileOptions, WorkspaceFile } from '../contracts/index.js';
import { ClassifiedError } from '../contracts/status.js';
import type { ExcludeMatcher } from './excludes.js';
import { type WalkEntry, walkWorkspace } from './walk.js';
import { linkLeaves, lstatIn, WorkspaceHandle } from './workspace-handle.js';

/** Snapshots carry a symlink as a file whose mode has these type bits and whose data is the target. */
export const symlinkMode = 0o120000;
const typeBits = 0o170000;

function entryType(type: WalkEntry['type']): FileEntry['type'] {
  // A FIFO, socket or device is listed as a file (it is one to `ls`); pulls leave it out.
  return type === 'special' ? 'file' : type;
}

/**
 * A workspace that is a directory on the host: file operations, listings, and whole-workspace
 * pull and push, for environments whose sandboxes work in a host folder. Every one goes through a WorkspaceHandle (see there why): paths are opened component by
 * component beneath the workspace, links are followed only while they stay inside, and walks never
 * follow a link at all. A process in the sandbox swapping folders and links meanwhile can make an
 * operation fail, never make it reach the host.
 */
export class FolderWorkspace {
  private readonly handle: WorkspaceHandle;

  constructor(
    /** The workspace with symlinks resolved, so that checks compare like with like. */
    readonly root: string,
    private readonly excluded: ExcludeMatcher,
    /** Regular files larger than this are left out of pulls unread (the `maxFileSize` option). */
    private readonly maxFileBytes: number,
  ) {
    this.handle = new WorkspaceHandle(root);
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

  writeFile(path: string, data: string | Uint8Array, mode?: number): Promise<void> {
    return this.handle.writeFile(path, data, mode);
  }

  remove(path: string): Promise<void> {
    return this.handle.remove(path);
  }

  async list(path: string, recursive: boolean): Promise<FileEntry[]> {
    const asked = this.handle.parts(path).join('/');
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
          if (linkLeaves(entry.path, target, this.root))
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
    });
    return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Makes the non-excluded part of the workspace hold exactly `files`; unchanged files are left alone. */
  async push(files: readonly WorkspaceFile[]): Promise<void> {
    const wanted = new Map<string, WorkspaceFile>();
    for (const file of files) {
      const rel = this.handle.parts(file.path).join('/');
      if (rel === '') throw new ClassifiedError('sandbox', `path "${file.path}" is the workspace itself`);
      if (!this.excluded(rel)) wanted.set(rel, file);
    }
    const unchanged = new Set<string>();
    const stale: string[] = [];
    const folders: string[] = [];
    await walkWorkspace(this.root, {
      visit: async (entry) => {
        if (this.excluded(entry.path)) return false;
        if (entry.type === 'dir') {
          folders.push(entry.path);
          return true;
        }
        const want = wanted.get(entry.path);
        if (await this.same(entry, want)) unchanged.add(entry.path);
        else stale.push(entry.path);
      },
    });
    for (const rel of stale) await this.handle.remove(rel);
    // Deepest first, so a folder emptied of empty folders goes too.
    for (const rel of folders.reverse()) await this.handle.removeEmptyFolder(rel);
    for (const [rel, file] of wanted) {
      if (unchanged.has(rel)) continue;
      await this.handle.remove(rel);
      if ((file.mode & typeBits) === symlinkMode) {
        await this.handle.symlink(Buffer.from(file.data).toString('utf8'), rel);
      } else {
        await this.handle.writeFile(rel, file.data, file.mode & 0o7777);
      }
    }
  }

  /** Whether a workspace entry already is the wanted file (sizes first: another size is never read). */
  private async same(entry: WalkEntry, want: WorkspaceFile | undefined): Promise<boolean> {
    if (want === undefined) return false;
    if (entry.type === 'symlink') {
      return (
        want.mode === (symlinkMode | 0o777) && Buffer.from(want.data).equals(Buffer.from(entry.target ?? ''))
      );
    }
    if (entry.type !== 'file' || want.mode !== (entry.mode & 0o7777) || want.data.length !== entry.size)
      return false;
    const data = await entry.read(want.data.length);
    return typeof data !== 'string' && Buffer.from(want.data).equals(Buffer.from(data));
  }
}
