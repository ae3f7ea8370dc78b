// The patch module alone: the package's index loads every kind of diff (about 20 modules) at start-up.
import { createTwoFilesPatch } from 'diff/lib/patch/create.js';
import type { SkippedFile, WorkspaceFile } from '../contracts/index.js';
import { formatSize } from '../workspace/file-size.js';
import { skipNote } from '../workspace/skip-note.js';

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

function bytes(data: Uint8Array): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** One side of a path in a diff: a file of the snapshot, or one it skipped for its size. */
interface Side {
  mode?: number;
  data?: Uint8Array;
  size: number;
  /** Why a skipped side was left out of its snapshot. */
  skipped?: SkippedFile;
}

function sides(files: readonly WorkspaceFile[], skipped: readonly SkippedFile[]): Map<string, Side> {
  const map = new Map<string, Side>();
  for (const file of files) map.set(file.path, { mode: file.mode, data: file.data, size: file.data.length });
  for (const file of skipped) map.set(file.path, { size: file.size, skipped: file });
  return map;
}

function unchanged(a: Side, b: Side): boolean {
  if (a.data && b.data) return bytes(a.data).equals(bytes(b.data));
  // Two skipped files of one size: their bytes were never read, so they count as unchanged.
  return a.data === undefined && b.data === undefined && a.size === b.size;
}

function sizeNote(side: Side): string {
  return side.data || !side.skipped
    ? ` (${formatSize(side.size)})`
    : ` (${skipNote(side.skipped)}: not in the snapshot)`;
}

export interface SkippedSides {
  before?: readonly SkippedFile[];
  after?: readonly SkippedFile[];
}

/**
 * A unified diff (git-style file headers) from one workspace to another: what a step changed.
 * Binary files are named, not dumped; large files and files the snapshots skipped for their size
 * are named with their sizes.
 */
export function workspaceDiff(
  before: readonly WorkspaceFile[],
  after: readonly WorkspaceFile[],
  skipped: SkippedSides = {},
): string {
  const old = sides(before, skipped.before ?? []);
  const now = sides(after, skipped.after ?? []);
  const paths = [...new Set([...old.keys(), ...now.keys()])].sort();
  const parts: string[] = [];
  for (const path of paths) {
    const a = old.get(path);
    const b = now.get(path);
    if (a && b && unchanged(a, b)) {
      if (a.mode !== b.mode) {
        parts.push(`diff --git a/${path} b/${path}\nold mode ${mode(a)}\nnew mode ${mode(b)}\n`);
      }
      continue;
    }
    const header = [`diff --git a/${path} b/${path}`];
    if (!a && b?.mode !== undefined) header.push(`new file mode ${mode(b)}`);
    if (a?.mode !== undefined && !b) header.push(`deleted file mode ${mode(a)}`);
    if (a?.mode !== undefined && b?.mode !== undefined && a.mode !== b.mode) {
      header.push(`old mode ${mode(a)}`, `new mode ${mode(b)}`);
    }
    const oldName = a ? `a/${path}` : '/dev/null';
    const newName = b ? `b/${path}` : '/dev/null';
    const large = [a, b].some((side) => side && (side.data === undefined || side.size > maxDiffFileBytes));
    const summary = `Large files ${oldName}${a ? sizeNote(a) : ''} and ${newName}${b ? sizeNote(b) : ''} differ`;
    if (large) {
      parts.push(`${header.join('\n')}\n${summary}\n`);
      continue;
    }
    const oldText = a?.data ? asText(a.data) : '';
    const newText = b?.data ? asText(b.data) : '';
    if (oldText === undefined || newText === undefined) {
      parts.push(`${header.join('\n')}\nBinary files ${oldName} and ${newName} differ\n`);
      continue;
    }
    const whole = oldText === '' || newText === '';
    const patch = createTwoFilesPatch(oldName, newName, oldText, newText, undefined, undefined, {
      context: 3,
      maxEditLength: whole ? Number.MAX_SAFE_INTEGER : maxEditLength,
      timeout: diffTimeoutMs,
    });
    if (patch === undefined) {
      parts.push(`${header.join('\n')}\nFiles ${oldName} and ${newName} differ in too many lines to show\n`);
      continue;
    }
    // Drop the "Index:"/"=====" preamble the diff package writes; git-style headers replace it.
    const body = patch.slice(patch.indexOf('--- '));
    parts.push(`${header.join('\n')}\n${body}`);
  }
  return parts.join('');
}

function mode(side: Side): string {
  const bits = side.mode ?? 0o644;
  const type = (bits & 0o170000) === 0o120000 ? 0o120000 : 0o100000;
  return (type | (bits & 0o777)).toString(8);
}
