// The patch module alone: the package's index loads every kind of diff (about 20 modules) at start-up.
import { createTwoFilesPatch } from 'diff/lib/patch/create.js';
import type { SkippedFile, SnapshotRef, SnapshotStore, WorkspaceFile } from '../contracts/index.js';
import { formatSize } from '../workspace/file-size.js';
import { skipNote } from '../workspace/skip-note.js';
import { pairByPath } from './pair-by-path.js';
import { sha256 } from './snapshot-store.js';

/** Files larger than this (on either side) are summarized by their sizes, not diffed line by line. */
export const maxDiffFileBytes = 1024 * 1024;
/**
 * Line diffs that need more edits (added plus removed lines) than this, or more time, are
 * summarized too: the diff package's cost grows with the square of the edits (a rewrite of 2,000
 * lines takes about a second, of 30,000 lines hours). A file added or deleted whole needs no search
 * and is always shown.
 */
const maxEditLength = 2_000;
const diffTimeoutMs = 20_000;

const decoder = new TextDecoder('utf-8', { fatal: true });

function asText(data: Uint8Array): string | undefined {
  if (data.includes(0)) return undefined;
  try {
    return decoder.decode(data);
  } catch {
    return undefined;
  }
}

/**
 * One side of a path in a diff: a file of the snapshot (its blob hash, its bytes read only when
 * the file changed and is small enough to show), or one it skipped. A plain record: no closures
 * per file, which a workspace of 100,000 files would feel.
 */
interface Side {
  mode?: number;
  blob?: string;
  /** The bytes of a file held in memory (a diff of pulled workspaces). */
  data?: Uint8Array;
  /** Why a skipped side was left out of its snapshot. */
  skipped?: SkippedFile;
}

type Sides = Map<string, Side>;

/** Where the bytes of the sides' blobs are read. */
interface Blobs {
  size(side: Side): Promise<number>;
  bytes(side: Side): Promise<Uint8Array>;
}

const inMemory: Blobs = {
  size: async (side) => side.data?.length ?? side.skipped?.size ?? 0,
  bytes: async (side) => side.data ?? new Uint8Array(0),
};

function storeBlobs(store: SnapshotStore): Blobs {
  return {
    size: (side) => (side.blob === undefined ? inMemory.size(side) : store.blob(side.blob).size()),
    bytes: (side) => (side.blob === undefined ? inMemory.bytes(side) : store.blob(side.blob).bytes()),
  };
}

function skippedSides(map: Sides, skipped: readonly SkippedFile[]): Sides {
  for (const file of skipped) map.set(file.path, { skipped: file });
  return map;
}

async function unchanged(a: Side, b: Side, blobs: Blobs): Promise<boolean> {
  if (a.blob !== undefined && b.blob !== undefined) return a.blob === b.blob;
  // Two skipped files of one size: their bytes were never read, so they count as unchanged.
  return a.blob === undefined && b.blob === undefined && (await blobs.size(a)) === (await blobs.size(b));
}

async function sizeNote(side: Side, blobs: Blobs): Promise<string> {
  return side.blob !== undefined || !side.skipped
    ? ` (${formatSize(await blobs.size(side))})`
    : ` (${skipNote(side.skipped)}: not in the snapshot)`;
}

/** Paths whose parts are made at once, ahead of the one being given: reads overlap, order holds. */
const readAhead = 16;

export interface SkippedSides {
  before?: readonly SkippedFile[];
  after?: readonly SkippedFile[];
}

/** A path of a diff with its side in the workspace before (`a`) and after (`b`). */
interface Pair {
  path: string;
  a?: Side;
  b?: Side;
}

/**
 * The parts of a unified diff (git-style file headers) from one workspace to another, one file
 * at a time, from the pairs in path order: a file whose blob did not change is never read, and
 * only the changed files read ahead have their bytes held.
 */
async function* diffParts(pairs: AsyncIterable<Pair>, blobs: Blobs): AsyncGenerator<string> {
  const pending: Promise<string | undefined>[] = [];
  const next = pairs[Symbol.asyncIterator]();
  let ended = false;
  try {
    while (!ended || pending.length > 0) {
      while (!ended && pending.length < readAhead) {
        const pair = await next.next();
        if (pair.done) {
          ended = true;
          break;
        }
        const part = diffPart(pair.value.path, pair.value.a, pair.value.b, blobs);
        // Awaited in turn below; a generator closed early leaves none unhandled.
        part.catch(() => undefined);
        pending.push(part);
      }
      const part = await pending.shift();
      if (part !== undefined) yield part;
    }
  } finally {
    if (!ended) await next.return?.();
  }
}

/**
 * The entries of a sorted list, the last of each path only: a manifest lists a path added twice
 * twice, and a diff has always taken the later one.
 */
async function* lastOfEachPath<T extends { path: string }>(entries: AsyncIterable<T>): AsyncGenerator<T> {
  let held: T | undefined;
  for await (const entry of entries) {
    if (held !== undefined && held.path !== entry.path) yield held;
    held = entry;
  }
  if (held !== undefined) yield held;
}

/** The part of the diff for one path, or nothing when it did not change. */
async function diffPart(
  path: string,
  a: Side | undefined,
  b: Side | undefined,
  blobs: Blobs,
): Promise<string | undefined> {
  if (a && b && (await unchanged(a, b, blobs))) {
    if (a.mode !== b.mode)
      return `diff --git a/${path} b/${path}\nold mode ${mode(a)}\nnew mode ${mode(b)}\n`;
    return undefined;
  }
  const header = [`diff --git a/${path} b/${path}`];
  if (!a && b?.mode !== undefined) header.push(`new file mode ${mode(b)}`);
  if (a?.mode !== undefined && !b) header.push(`deleted file mode ${mode(a)}`);
  if (a?.mode !== undefined && b?.mode !== undefined && a.mode !== b.mode) {
    header.push(`old mode ${mode(a)}`, `new mode ${mode(b)}`);
  }
  const oldName = a ? `a/${path}` : '/dev/null';
  const newName = b ? `b/${path}` : '/dev/null';
  let large = false;
  for (const side of [a, b])
    if (side && (side.blob === undefined || (await blobs.size(side)) > maxDiffFileBytes)) large = true;
  if (large) {
    const notes = `${oldName}${a ? await sizeNote(a, blobs) : ''} and ${newName}${b ? await sizeNote(b, blobs) : ''}`;
    return `${header.join('\n')}\nLarge files ${notes} differ\n`;
  }
  const oldText = a ? asText(await blobs.bytes(a)) : '';
  const newText = b ? asText(await blobs.bytes(b)) : '';
  if (oldText === undefined || newText === undefined) {
    return `${header.join('\n')}\nBinary files ${oldName} and ${newName} differ\n`;
  }
  const whole = oldText === '' || newText === '';
  const patch = createTwoFilesPatch(oldName, newName, oldText, newText, undefined, undefined, {
    context: 3,
    maxEditLength: whole ? Number.MAX_SAFE_INTEGER : maxEditLength,
    timeout: diffTimeoutMs,
  });
  if (patch === undefined) {
    return `${header.join('\n')}\nFiles ${oldName} and ${newName} differ in too many lines to show\n`;
  }
  // Drop the "Index:"/"=====" preamble the diff package writes; git-style headers replace it.
  return `${header.join('\n')}\n${patch.slice(patch.indexOf('--- '))}`;
}

/**
 * A stored snapshot's sides in path order, its files and skipped files merged as they are read
 * (a path both stored and skipped counts as skipped, as it always has).
 */
async function* storedSides(
  store: SnapshotStore,
  ref: SnapshotRef | undefined,
): AsyncGenerator<{ path: string; side: Side }> {
  if (ref === undefined) return;
  for await (const [file, skipped] of pairByPath(
    lastOfEachPath(store.scan(ref)),
    lastOfEachPath(store.scanSkipped(ref)),
  ))
    yield skipped !== undefined
      ? { path: skipped.path, side: { skipped } }
      : { path: file!.path, side: { mode: file!.mode, blob: file!.blob } };
}

/**
 * The diff of two stored snapshots (`before` absent: from an empty workspace), as parts to write
 * as they come (diff.patch): the two manifests are read side by side in path order, never whole,
 * and only the files whose blobs differ are read.
 */
export async function* snapshotDiff(
  store: SnapshotStore,
  before: SnapshotRef | undefined,
  after: SnapshotRef,
): AsyncGenerator<string> {
  const pairs = async function* () {
    for await (const [a, b] of pairByPath(storedSides(store, before), storedSides(store, after)))
      yield { path: (a ?? b)!.path, a: a?.side, b: b?.side };
  };
  yield* diffParts(pairs(), storeBlobs(store));
}

function memorySides(files: readonly WorkspaceFile[], skipped: readonly SkippedFile[]): Sides {
  const map: Sides = new Map();
  for (const file of files) map.set(file.path, { mode: file.mode, blob: sha256(file.data), data: file.data });
  return skippedSides(map, skipped);
}

/**
 * A unified diff (git-style file headers) from one workspace held in memory to another: what a
 * step changed. Binary files are named, not dumped; large files and files the snapshots skipped
 * are named with their sizes. Stored snapshots are diffed by `snapshotDiff`, which streams.
 */
export async function workspaceDiff(
  before: readonly WorkspaceFile[],
  after: readonly WorkspaceFile[],
  skipped: SkippedSides = {},
): Promise<string> {
  const old = memorySides(before, skipped.before ?? []);
  const now = memorySides(after, skipped.after ?? []);
  const pairs = async function* () {
    for (const path of [...new Set([...old.keys(), ...now.keys()])].sort())
      yield { path, a: old.get(path), b: now.get(path) };
  };
  let text = '';
  for await (const part of diffParts(pairs(), inMemory)) text += part;
  return text;
}

function mode(side: Side): string {
  const bits = side.mode ?? 0o644;
  const type = (bits & 0o170000) === 0o120000 ? 0o120000 : 0o100000;
  return (type | (bits & 0o777)).toString(8);
}
