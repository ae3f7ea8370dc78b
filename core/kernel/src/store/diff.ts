import { createTwoFilesPatch } from 'diff';
import type { WorkspaceFile } from '../contracts/index.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

function asText(data: Uint8Array): string | undefined {
  if (data.includes(0)) return undefined;
  try {
    return decoder.decode(data);
  } catch {
    return undefined;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/**
 * A unified diff (git-style file headers) from one workspace to another: what a step changed.
 * Binary files are named, not dumped.
 */
export function workspaceDiff(before: readonly WorkspaceFile[], after: readonly WorkspaceFile[]): string {
  const old = new Map(before.map((file) => [file.path, file]));
  const now = new Map(after.map((file) => [file.path, file]));
  const paths = [...new Set([...old.keys(), ...now.keys()])].sort();
  const parts: string[] = [];
  for (const path of paths) {
    const a = old.get(path);
    const b = now.get(path);
    if (a && b && sameBytes(a.data, b.data)) {
      if (a.mode !== b.mode) {
        parts.push(`diff --git a/${path} b/${path}\nold mode ${mode(a)}\nnew mode ${mode(b)}\n`);
      }
      continue;
    }
    const header = [`diff --git a/${path} b/${path}`];
    if (!a && b) header.push(`new file mode ${mode(b)}`);
    if (a && !b) header.push(`deleted file mode ${mode(a)}`);
    if (a && b && a.mode !== b.mode) header.push(`old mode ${mode(a)}`, `new mode ${mode(b)}`);
    const oldText = a ? asText(a.data) : '';
    const newText = b ? asText(b.data) : '';
    const oldName = a ? `a/${path}` : '/dev/null';
    const newName = b ? `b/${path}` : '/dev/null';
    if (oldText === undefined || newText === undefined) {
      parts.push(`${header.join('\n')}\nBinary files ${oldName} and ${newName} differ\n`);
      continue;
    }
    const patch = createTwoFilesPatch(oldName, newName, oldText, newText, undefined, undefined, {
      context: 3,
    });
    // Drop the "Index:"/"=====" preamble the diff package writes; git-style headers replace it.
    const body = patch.slice(patch.indexOf('--- '));
    parts.push(`${header.join('\n')}\n${body}`);
  }
  return parts.join('');
}

function mode(file: WorkspaceFile): string {
  const type = (file.mode & 0o170000) === 0o120000 ? 0o120000 : 0o100000;
  return (type | (file.mode & 0o777)).toString(8);
}
