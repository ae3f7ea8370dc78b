import { createHash } from 'node:crypto';
import { access, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  PullOptions,
  SkippedFile,
  SnapshotRef,
  SnapshotStore,
  WorkspaceFile,
} from '../contracts/index.js';
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

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * The manifest text whose sha256 is a snapshot's ref; sorted so equal workspaces get equal refs.
 * Files skipped for their size are listed (path and size) only when there are any, so the refs of
 * workspaces without them do not change.
 */
export function manifestOf(
  files: readonly WorkspaceFile[],
  skipped: readonly SkippedFile[] = [],
): { entries: ManifestEntry[]; text: string } {
  const entries = files
    .map((file) => ({ path: file.path, mode: file.mode, blob: sha256(file.data) }))
    .sort(byPath);
  // A reason is written only when it is not the size, so refs of size-only skips stay as they were.
  const left = skipped
    .map((file) => ({
      path: file.path,
      size: file.size,
      ...(file.reason !== undefined && file.reason !== 'size' ? { reason: file.reason } : {}),
    }))
    .sort(byPath);
  const manifest = left.length > 0 ? { files: entries, skipped: left } : { files: entries };
  return { entries, text: `${JSON.stringify(manifest)}\n` };
}

interface Manifest {
  files: ManifestEntry[];
  skipped?: SkippedFile[];
}

/**
 * What `Sandbox.snapshot()` does in every environment: pulls the workspace, noting the files the
 * pull skips for their size, and stores both.
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

  async put(files: WorkspaceFile[], skipped: readonly SkippedFile[] = []): Promise<SnapshotRef> {
    const { entries, text } = manifestOf(files, skipped);
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
    // Each blob is read once, however many files share it, and a few at a time: a workspace of
    // 200,000 files would otherwise open 200,000 at once (EMFILE) and hold a copy per file.
    const blobs = [...new Set(entries.map((entry) => entry.blob))];
    const data = new Map<string, Uint8Array>();
    let next = 0;
    const reader = async () => {
      while (next < blobs.length) {
        const blob = blobs[next++]!;
        data.set(blob, new Uint8Array(await readFile(this.blobPath(blob))));
      }
    };
    await Promise.all(Array.from({ length: Math.min(blobReaders, blobs.length) }, reader));
    return entries.map((entry) => ({ path: entry.path, mode: entry.mode, data: data.get(entry.blob)! }));
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

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
