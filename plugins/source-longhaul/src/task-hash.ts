import { readDirectoryFiles, sha256 } from '@longhaul/core';

/** Caches that tools leave next to a task's files; they are not part of the task. */
const ignored = new Set(['__pycache__', '.DS_Store', 'node_modules', '.pytest_cache']);

/**
 * sha256 over each file's path and content (not its mode, which differs between checkouts), so
 * any edit to a task changes its hash.
 */
export async function hashTask(root: string): Promise<string> {
  const files = (await readDirectoryFiles(root)).filter(
    (file) => !file.path.split('/').some((part) => ignored.has(part)),
  );
  return `sha256:${sha256(files.map((file) => `${file.path}\0${sha256(file.data)}\n`).join(''))}`;
}
