import { createHash } from 'node:crypto';
import { access, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SnapshotRef, SnapshotStore, WorkspaceFile } from '../contracts/index.js';
import { ClassifiedError } from '../contracts/index.js';
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

/** The manifest text whose sha256 is a snapshot's ref; sorted so equal workspaces get equal refs. */
export function manifestOf(files: readonly WorkspaceFile[]): { entries: ManifestEntry[]; text: string } {
  const entries = files
    .map((file) => ({ path: file.path, mode: file.mode, blob: sha256(file.data) }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { entries, text: `${JSON.stringify({ files: entries })}\n` };
}

const refPattern = /^[0-9a-f]{64}$/;

/**
 * Content-addressed snapshots in a run directory: file contents as sha256-named blobs under
 * `snapshots/blobs/`, one manifest per snapshot under `snapshots/manifests/` named by its own
 * sha256 (the ref). Identical files are stored once across steps and trials.
 */
export class BlobSnapshotStore implements SnapshotStore {
  private readonly blobs: string;
  private readonly manifests: string;

  constructor(readonly dir: string) {
    this.blobs = join(dir, 'blobs');
    this.manifests = join(dir, 'manifests');
  }

  async put(files: WorkspaceFile[]): Promise<SnapshotRef> {
    const { entries, text } = manifestOf(files);
    await mkdir(this.blobs, { recursive: true });
    await mkdir(this.manifests, { recursive: true });
    const dataByPath = new Map(files.map((file) => [file.path, file.data]));
    const seen = new Set<string>();
    for (const entry of entries) {
      if (seen.has(entry.blob)) continue;
      seen.add(entry.blob);
      const path = this.blobPath(entry.blob);
      if (!(await exists(path))) await writeFileAtomic(path, dataByPath.get(entry.path)!);
    }
    const ref = sha256(text);
    const manifest = join(this.manifests, `${ref}.json`);
    // Blobs first, manifest last: a manifest on disk always has all its blobs.
    if (!(await exists(manifest))) await writeFileAtomic(manifest, text);
    return ref;
  }

  async get(ref: SnapshotRef): Promise<WorkspaceFile[]> {
    const entries = await this.manifest(ref);
    return Promise.all(
      entries.map(async (entry) => ({
        path: entry.path,
        mode: entry.mode,
        data: new Uint8Array(await readFile(this.blobPath(entry.blob))),
      })),
    );
  }

  async has(ref: SnapshotRef): Promise<boolean> {
    return refPattern.test(ref) && exists(join(this.manifests, `${ref}.json`));
  }

  /** The manifest of a snapshot (paths, modes, blob hashes) without reading the blobs. */
  async manifest(ref: SnapshotRef): Promise<ManifestEntry[]> {
    if (!refPattern.test(ref)) throw new ClassifiedError('internal', `not a snapshot ref: '${ref}'`);
    let text: string;
    try {
      text = await readFile(join(this.manifests, `${ref}.json`), 'utf8');
    } catch {
      throw new ClassifiedError('internal', `snapshot ${ref} is not in ${this.dir}`);
    }
    return (JSON.parse(text) as { files: ManifestEntry[] }).files;
  }

  private blobPath(blob: string): string {
    return join(this.blobs, blob.slice(0, 2), blob.slice(2));
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
