import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { regularFiles } from '@longhaul/core/light';

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
  // Links are not followed: a solution's link to a folder is not read as files.
  const files = await Promise.all(
    (await regularFiles(dir)).map(async (path): Promise<[string, SolutionFile]> => {
      const content = await readFile(join(dir, path));
      return [
        path,
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
