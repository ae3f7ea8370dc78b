import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

const ignored = new Set(['__pycache__', '.DS_Store', 'node_modules', '.pytest_cache']);

/** Every file under `dir` (relative, `/`-separated, sorted), minus caches tools leave behind. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .filter((path) => !path.split(sep).some((part) => ignored.has(part)))
    .map((path) => path.split(sep).join('/'))
    .sort();
}

/** sha256 over each file's path and content, so any edit to a task changes its hash. */
export async function hashTask(root: string): Promise<string> {
  const hash = createHash('sha256');
  for (const path of await listFiles(root)) {
    const data = await readFile(join(root, path));
    hash.update(`${path}\0${data.length}\0`);
    hash.update(data);
  }
  return `sha256:${hash.digest('hex')}`;
}
