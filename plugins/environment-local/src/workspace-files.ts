import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  rmdir,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import {
  ClassifiedError,
  type ExcludeMatcher,
  type FileEntry,
  type PullOptions,
  type WorkspaceFile,
} from '@longhaul/core';

/** Snapshots carry a symlink as a file whose mode has these type bits and whose data is the target. */
export const symlinkMode = 0o120000;
const typeBits = 0o170000;

function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function toPosix(rel: string): string {
  return rel.split(sep).join('/');
}

function escapeError(path: string): ClassifiedError {
  return new ClassifiedError('sandbox', `path "${path}" is outside the workspace`);
}

async function entryData(abs: string, isLink: boolean): Promise<Uint8Array> {
  return isLink ? Buffer.from(await readlink(abs)) : readFile(abs);
}

/** The workspace directory on the host: path checks, listings, and whole-workspace pull and push. */
export class WorkspaceFiles {
  constructor(
    /** The workspace with symlinks resolved, so that checks compare like with like. */
    readonly root: string,
    private readonly excluded: ExcludeMatcher,
    /** Regular files larger than this are left out of pulls unread (the `maxFileSize` option). */
    private readonly maxFileBytes: number,
  ) {}

  /**
   * The host path for a workspace path, refused when it lies outside the workspace, also through
   * a symlink. `followLast` is false for operations that act on a link itself (remove).
   */
  async resolve(path: string, followLast = true): Promise<string> {
    const abs = isAbsolute(path) ? resolve(path) : resolve(this.root, path);
    if (!isWithin(this.root, abs)) throw escapeError(path);
    let probe = followLast ? abs : dirname(abs);
    for (;;) {
      try {
        if (!isWithin(this.root, await realpath(probe))) throw escapeError(path);
        return abs;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        probe = dirname(probe);
      }
    }
  }

  relative(abs: string): string {
    return toPosix(relative(this.root, abs));
  }

  async list(path: string, recursive: boolean): Promise<FileEntry[]> {
    const abs = await this.resolve(path);
    const top = await lstat(abs);
    if (!top.isDirectory()) return [await this.entry(abs)];
    const names = await readdir(abs, { recursive });
    const entries = await Promise.all(names.map((name) => this.entry(join(abs, name))));
    return entries.sort((a, b) => a.path.localeCompare(b.path));
  }

  private async entry(abs: string): Promise<FileEntry> {
    const stat = await lstat(abs);
    const type = stat.isSymbolicLink() ? 'symlink' : stat.isDirectory() ? 'dir' : 'file';
    return { path: this.relative(abs), type, size: stat.size, mode: stat.mode & 0o7777 };
  }

  /**
   * Every file and symlink outside the excludes, sorted by path (so equal workspaces pull equal).
   * A file over the size limit is judged by its lstat and never opened.
   */
  async pull(options: PullOptions = {}): Promise<WorkspaceFile[]> {
    const files: WorkspaceFile[] = [];
    await this.walk(this.root, async (abs, rel, isLink, mode, size) => {
      if (!isLink && size > this.maxFileBytes) options.onSkipped?.({ path: rel, size });
      else files.push({ path: rel, mode, data: await entryData(abs, isLink) });
    });
    return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Makes the non-excluded part of the workspace hold exactly `files`; unchanged files are left alone. */
  async push(files: readonly WorkspaceFile[]): Promise<void> {
    const wanted = new Map<string, WorkspaceFile>();
    for (const file of files) {
      const rel = toPosix(relative(this.root, await this.resolve(file.path, false)));
      if (rel === '' || rel.startsWith('..')) throw escapeError(file.path);
      if (!this.excluded(rel)) wanted.set(rel, file);
    }
    const unchanged = new Set<string>();
    const stale: string[] = [];
    await this.walk(this.root, async (abs, rel, isLink, mode, size) => {
      const want = wanted.get(rel);
      // Sizes first: a file of another size (a large one the agent left, say) is never read.
      const same =
        want !== undefined &&
        want.mode === mode &&
        (isLink || want.data.length === size) &&
        Buffer.from(want.data).equals(await entryData(abs, isLink));
      if (same) {
        unchanged.add(rel);
      } else {
        stale.push(abs);
      }
    });
    await Promise.all(stale.map((abs) => rm(abs, { recursive: true, force: true })));
    await this.pruneEmptyDirs(this.root);
    for (const [rel, file] of wanted) {
      if (unchanged.has(rel)) continue;
      const abs = join(this.root, rel);
      await rm(abs, { recursive: true, force: true });
      await mkdir(dirname(abs), { recursive: true });
      if ((file.mode & typeBits) === symlinkMode) {
        await symlink(Buffer.from(file.data).toString('utf8'), abs);
      } else {
        await writeFile(abs, file.data);
        await chmod(abs, file.mode & 0o7777);
      }
    }
  }

  private async walk(
    dir: string,
    visit: (abs: string, rel: string, isLink: boolean, mode: number, size: number) => Promise<void>,
  ): Promise<void> {
    for (const dirent of await readdir(dir, { withFileTypes: true })) {
      const abs = join(dir, dirent.name);
      const rel = this.relative(abs);
      if (this.excluded(rel)) continue;
      if (dirent.isDirectory()) {
        await this.walk(abs, visit);
      } else if (dirent.isSymbolicLink()) {
        await visit(abs, rel, true, symlinkMode | 0o777, 0);
      } else if (dirent.isFile()) {
        const stat = await lstat(abs);
        await visit(abs, rel, false, stat.mode & 0o7777, stat.size);
      }
    }
  }

  /** Removes directories left empty by a push (never excluded ones, never the workspace itself). */
  private async pruneEmptyDirs(dir: string): Promise<boolean> {
    let empty = true;
    for (const dirent of await readdir(dir, { withFileTypes: true })) {
      const abs = join(dir, dirent.name);
      if (dirent.isDirectory() && !this.excluded(this.relative(abs)) && (await this.pruneEmptyDirs(abs))) {
        continue;
      }
      empty = false;
    }
    if (empty && dir !== this.root) await rmdir(dir);
    return empty;
  }
}
