import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

export interface SolutionFile {
  content: Buffer;
  sha256: string;
  /** UTF-8 text without NUL bytes: writable through a text tool. */
  text: boolean;
}

/** Files of a reference directory, keyed by `/`-separated relative path. */
export type FileSet = Map<string, SolutionFile>;

const cache = new Map<string, Promise<FileSet>>();

/** Reads a directory tree once per process (reference solutions do not change during a run). */
export function readSolution(dir: string): Promise<FileSet> {
  let files = cache.get(dir);
  if (!files) {
    files = load(dir);
    cache.set(dir, files);
    files.catch(() => cache.delete(dir));
  }
  return files;
}

async function load(dir: string): Promise<FileSet> {
  const entries = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) =>
    entry.isFile(),
  );
  const files = await Promise.all(
    entries.map(async (entry): Promise<[string, SolutionFile]> => {
      const path = join(entry.parentPath, entry.name);
      const content = await readFile(path);
      return [
        relative(dir, path).split(sep).join('/'),
        { content, sha256: createHash('sha256').update(content).digest('hex'), text: isText(content) },
      ];
    }),
  );
  return new Map(files.sort(([a], [b]) => a.localeCompare(b)));
}

function isText(content: Buffer): boolean {
  if (content.includes(0)) return false;
  return Buffer.from(content.toString('utf8'), 'utf8').equals(content);
}
