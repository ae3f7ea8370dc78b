import { formatSize, isFileTooLarge } from '@longhaul/core';
import { ToolRefusal } from './policy.js';
import type { ToolContext } from './tool.js';

/** A workspace file's bytes up to `maxBytes`: `missing` when there is none, `size` when it is larger. */
export type BoundedRead = { data: Uint8Array } | { missing: true } | { size: number };

/**
 * Reads a file the agent may have made of any size: one over `maxBytes` is refused by the sandbox
 * unread. An environment that ignores `maxBytes` still has its answer measured here, so nothing
 * larger reaches the tools' decoding and splitting.
 */
export async function readBounded(ctx: ToolContext, rel: string, maxBytes: number): Promise<BoundedRead> {
  let data: Uint8Array;
  try {
    data = await ctx.sandbox.readFile(rel, { maxBytes });
  } catch (error) {
    if (isFileTooLarge(error)) return { size: error.size };
    if (await exists(ctx, rel)) throw error;
    return { missing: true };
  }
  return data.length > maxBytes ? { size: data.length } : { data };
}

export async function exists(ctx: ToolContext, rel: string): Promise<boolean> {
  const dir = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '.';
  const entries = await ctx.sandbox.list(dir).catch(() => []);
  return entries.some((entry) => entry.path === rel);
}

/** The refusal of an edit tool for a file too large to rewrite in the runner. */
export function tooLargeToEdit(tool: string, rel: string, size: number, maxBytes: number): ToolRefusal {
  return new ToolRefusal(
    `${rel} is ${formatSize(size)}, larger than the ${formatSize(maxBytes)} ${tool} rewrites; change it with run_terminal_cmd (sed, a script) instead`,
    { file: rel, size },
  );
}

const newline = 0x0a;

/** Lines of a text as read_file shows them: numbered, within a character budget. */
export interface LineWindow {
  /** `  12|text` lines, joined with newlines. */
  content: string;
  totalLines: number;
  /** First and last line shown (the last is start - 1 when none fits). */
  start: number;
  end: number;
  /** The last line shown was cut at the budget. */
  cutLine: boolean;
}

/**
 * The lines `start`..`end` (1-based, inclusive) of a file's bytes, numbered, stopping before the
 * JSON-escaped text would pass `budget` characters. Works on the bytes: only the lines shown are
 * decoded, so a file of millions of lines costs one pass and no array of them.
 */
export function lineWindow(data: Uint8Array, start: number, end: number, budget: number): LineWindow {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  // One pass over the bytes counts the lines and finds where line `start` begins.
  let totalLines = 0;
  let offset = start <= 1 ? 0 : -1;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== newline) continue;
    totalLines++;
    if (totalLines === start - 1) offset = i + 1;
  }
  if (bytes.length > 0 && bytes[bytes.length - 1] !== newline) totalLines++;
  const last = Math.min(end, totalLines);
  const width = String(last).length;
  const shown: string[] = [];
  let used = 0;
  let line = start;
  let cutLine = false;
  while (line <= last && offset >= 0) {
    const next = bytes.indexOf(newline, offset);
    const stop = next < 0 ? bytes.length : next;
    const text = `${String(line).padStart(width)}|${bytes.toString('utf8', offset, stop)}`;
    // What the line costs once the result is JSON: escapes count, and so does its "\\n".
    const cost = JSON.stringify(text).length;
    if (used + cost > budget) {
      if (shown.length === 0) {
        // One line longer than the budget (minified code, a data line): its start, said so.
        const room = Math.max(0, Math.floor((budget - 80) / 2));
        shown.push(`${text.slice(0, room)}…[line cut: ${text.length - room} more characters]`);
        cutLine = true;
        line++;
      }
      break;
    }
    shown.push(text);
    used += cost;
    line++;
    offset = stop + 1;
  }
  return { content: shown.join('\n'), totalLines, start, end: line - 1, cutLine };
}
