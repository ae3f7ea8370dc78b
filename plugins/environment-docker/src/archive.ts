import { Readable } from 'node:stream';
import type { FileEntry, WorkspaceFile } from '@longhaul/core';
import { extract, type Header, pack } from 'tar-stream';

/** The unprivileged user agents run as, in every container. */
export const agentUser = { name: 'agent', uid: 1000, gid: 1000, home: '/home/agent' } as const;

const symlinkType = 0o120000;
const typeBits = 0o170000;

export function isSymlinkMode(mode: number): boolean {
  return (mode & typeBits) === symlinkType;
}

function parents(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/** A Buffer over the same memory: the archive must not hold a second copy of every file. */
function view(data: Uint8Array): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * A tar stream of workspace files (and their parent directories) owned by the agent, as
 * `putArchive` extracts it into the workspace. Directories come first so that their modes apply.
 * It is read as it is sent: the archive is never whole in memory, and file data is not copied.
 */
export function packFiles(files: readonly WorkspaceFile[], mtime = new Date()): Readable {
  const archive = pack();
  const owner = {
    uid: agentUser.uid,
    gid: agentUser.gid,
    uname: agentUser.name,
    gname: agentUser.name,
    mtime,
  };
  const failed = (error?: Error | null) => {
    if (error) archive.destroy(error);
  };
  const dirs = [...new Set(files.flatMap((f) => parents(f.path)))].sort();
  for (const dir of dirs) archive.entry({ ...owner, name: dir, type: 'directory', mode: 0o755 }, failed);
  for (const file of files) {
    if (isSymlinkMode(file.mode)) {
      const linkname = view(file.data).toString('utf8');
      archive.entry({ ...owner, name: file.path, type: 'symlink', linkname, mode: 0o777 }, failed);
    } else {
      const header = { ...owner, name: file.path, type: 'file' as const, mode: file.mode & 0o7777 };
      archive.entry(header, view(file.data), failed);
    }
  }
  archive.finalize();
  // A Node stream over tar-stream's own (streamx) one, as the Docker client pipes it.
  return Readable.from(archive, { objectMode: false });
}

export interface ArchiveEntry extends FileEntry {
  /** Contents, for files (and symlink targets) when asked for. */
  data?: Buffer;
  /** A file whose contents were asked for but are over `maxFileBytes`: drained unread. */
  skipped?: boolean;
}

function entryType(header: Header): FileEntry['type'] | undefined {
  if (header.type === 'file' || header.type === 'contiguous-file') return 'file';
  if (header.type === 'directory') return 'dir';
  if (header.type === 'symlink') return 'symlink';
  return undefined;
}

/**
 * Reads a tar as `getArchive` sends it, entry by entry as it arrives (the archive is never whole
 * in memory). Its names start with the basename of the requested path; they are rewritten to start
 * with `prefix` (a workspace-relative path, or '' for the workspace). Files whose data is wanted
 * and at most `maxFileBytes` long keep it; larger ones are drained and marked `skipped`.
 */
export async function readArchive(
  stream: NodeJS.ReadableStream,
  prefix: string,
  withData: (path: string, size: number) => boolean,
  maxFileBytes = Number.POSITIVE_INFINITY,
): Promise<ArchiveEntry[]> {
  const reader = extract();
  stream.on('error', (error: Error) => reader.destroy(error));
  stream.pipe(reader);
  const entries: ArchiveEntry[] = [];
  for await (const entry of reader) {
    const header = entry.header;
    const rest = header.name.replace(/\/+$/, '').split('/').slice(1).join('/');
    const path = [prefix, rest].filter((p) => p !== '').join('/');
    const type = entryType(header);
    const mode = (header.mode ?? 0) & 0o7777;
    const size = header.size ?? 0;
    if (type === 'file' && withData(path, size)) {
      if (size > maxFileBytes) {
        entry.resume();
        entries.push({ path, type, mode, size, skipped: true });
        continue;
      }
      // One buffer of the size the header gives, filled as chunks arrive: no second copy.
      const data = Buffer.allocUnsafe(size);
      let filled = 0;
      for await (const chunk of entry) filled += (chunk as Buffer).copy(data, filled);
      entries.push({ path, type, mode, size, data: data.subarray(0, filled) });
      continue;
    }
    entry.resume();
    if (type === 'symlink') {
      const target = Buffer.from(header.linkname ?? '');
      entries.push({ path, type, mode: symlinkType | 0o777, size: target.length, data: target });
    } else if (type !== undefined) {
      entries.push({ path, type, mode, size });
    }
  }
  return entries;
}
