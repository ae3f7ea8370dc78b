import type { WorkspaceFile } from '@longhaul/core';
import picomatch from 'picomatch';

/** Directories no judge or analyzer should read: tool caches and hidden state. */
const ignoredSegments = new Set(['node_modules', '__pycache__', '.git', '.venv', 'venv', 'dist', 'build']);

/**
 * A read-only view of a workspace snapshot: the only repository the judge and the DIR analyzer
 * see. Files the memory keeps in the workspace (notes, CLAUDE.md) are excluded so they are not
 * scored as the agent's code.
 */
export class RepoView {
  readonly files: ReadonlyMap<string, string>;

  /** Whether a path is one the view shows: what a snapshot's reader need read for it. */
  static shows(exclude: readonly string[] = []): (path: string) => boolean {
    const excluded = exclude.length ? picomatch([...exclude], { dot: true }) : () => false;
    return (path) =>
      !path.split('/').some((segment) => ignoredSegments.has(segment) || segment.startsWith('.')) &&
      !excluded(path);
  }

  constructor(files: readonly WorkspaceFile[], exclude: readonly string[] = []) {
    const shows = RepoView.shows(exclude);
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const map = new Map<string, string>();
    for (const file of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
      if (!shows(file.path)) continue;
      try {
        map.set(file.path, decoder.decode(file.data));
      } catch {
        // Binary files carry no design a text judge could read.
      }
    }
    this.files = map;
  }

  /** Entries directly under `dir` ('' or '.' for the root); directories end with '/'. */
  list(dir = ''): string[] {
    const prefix = dir === '' || dir === '.' || dir === '/' ? '' : `${dir.replace(/^\.?\/+|\/+$/g, '')}/`;
    const entries = new Set<string>();
    for (const path of this.files.keys()) {
      if (!path.startsWith(prefix)) continue;
      const rest = path.slice(prefix.length);
      const slash = rest.indexOf('/');
      entries.add(slash === -1 ? rest : `${rest.slice(0, slash)}/`);
    }
    return [...entries].sort();
  }

  /** Numbered lines of a file, `start`/`end` 1-based and inclusive; undefined when there is no such file. */
  read(path: string, start = 1, end = Number.POSITIVE_INFINITY): string | undefined {
    const text = this.files.get(path.replace(/^\.?\/+/, ''));
    if (text === undefined) return undefined;
    const lines = text.split('\n');
    const last = Math.min(lines.length, end);
    const out: string[] = [];
    for (let line = Math.max(1, start); line <= last; line++) out.push(`${line}: ${lines[line - 1]}`);
    return out.join('\n');
  }

  /** `path:line: text` for every line matching `pattern` (a regular expression), at most `limit`. */
  grep(pattern: string, under = '', limit = 60): string[] {
    let regex: RegExp;
    try {
      regex = new RegExp(pattern);
    } catch {
      regex = new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    }
    const prefix = under.replace(/^\.?\/+|\/+$/g, '');
    const hits: string[] = [];
    for (const [path, text] of this.files) {
      if (prefix && !path.startsWith(`${prefix}/`) && path !== prefix) continue;
      const lines = text.split('\n');
      for (let index = 0; index < lines.length && hits.length < limit; index++) {
        if (regex.test(lines[index]!)) hits.push(`${path}:${index + 1}: ${lines[index]!.slice(0, 200)}`);
      }
      if (hits.length >= limit) break;
    }
    return hits;
  }
}
