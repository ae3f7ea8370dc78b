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

/**
 * A tar of workspace files (and their parent directories) owned by the agent, as `putArchive`
 * extracts it into the workspace. Directories come first so that their modes apply.
 */
export async function packFiles(files: readonly WorkspaceFile[], mtime = new Date()): Promise<Buffer> {
  const archive = pack();
  const owner = {
    uid: agentUser.uid,
    gid: agentUser.gid,
    uname: agentUser.name,
    gname: agentUser.name,
    mtime,
  };
  const dirs = [...new Set(files.flatMap((f) => parents(f.path)))].sort();
  for (const dir of dirs) archive.entry({ ...owner, name: dir, type: 'directory', mode: 0o755 });
  for (const file of files) {
    if (isSymlinkMode(file.mode)) {
      archive.entry({
        ...owner,
        name: file.path,
        type: 'symlink',
        linkname: Buffer.from(file.data).toString('utf8'),
        mode: 0o777,
      });
    } else {
      archive.entry(
        { ...owner, name: file.path, type: 'file', mode: file.mode & 0o7777 },
        Buffer.from(file.data),
      );
    }
  }
  archive.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of archive) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface ArchiveEntry extends FileEntry {
  /** Contents, for files (and symlink targets) when asked for. */
  data?: Buffer;
}

function entryType(header: Header): FileEntry['type'] | undefined {
  if (header.type === 'file' || header.type === 'contiguous-file') return 'file';
  if (header.type === 'directory') return 'dir';
  if (header.type === 'symlink') return 'symlink';
  return undefined;
}

/**
 * Reads a tar as `getArchive` sends it. Its names start with the basename of the requested path;
 * they are rewritten to start with `prefix` (a workspace-relative path, or '' for the workspace).
 */
export async function readArchive(
  stream: NodeJS.ReadableStream,
  prefix: string,
  withData: (path: string) => boolean,
): Promise<ArchiveEntry[]> {
  const reader = extract();
  stream.pipe(reader);
  const entries: ArchiveEntry[] = [];
  for await (const entry of reader) {
    const header = entry.header;
    const rest = header.name.replace(/\/+$/, '').split('/').slice(1).join('/');
    const path = [prefix, rest].filter((p) => p !== '').join('/');
    const type = entryType(header);
    const mode = (header.mode ?? 0) & 0o7777;
    if (type === 'file' && withData(path)) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      entries.push({ path, type, mode, size: header.size ?? 0, data: Buffer.concat(chunks) });
      continue;
    }
    entry.resume();
    if (type === 'symlink') {
      const target = Buffer.from(header.linkname ?? '');
      entries.push({ path, type, mode: symlinkType | 0o777, size: target.length, data: target });
    } else if (type !== undefined) {
      entries.push({ path, type, mode, size: header.size ?? 0 });
    }
  }
  return entries;
}
