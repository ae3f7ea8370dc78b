import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { PullOptions, WorkspaceFile } from '../contracts/index.js';

/**
 * Reads a host directory (a task's seed or a step's reference solution) as workspace files,
 * sorted by path. Symlinks are kept as files holding their target, as snapshots carry them.
 * With `maxFileBytes`, larger files are left out unread and reported to `onSkipped`.
 */
export async function readDirectoryFiles(
  root: string,
  options: PullOptions & { maxFileBytes?: number } = {},
): Promise<WorkspaceFile[]> {
  const files: WorkspaceFile[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries) {
      const full = join(dir, entry.name);
      const path = relative(root, full).split(sep).join('/');
      if (entry.isDirectory()) await walk(full);
      else if (entry.isSymbolicLink()) {
        files.push({ path, mode: 0o120777, data: new TextEncoder().encode(await readlink(full)) });
      } else if (entry.isFile()) {
        const stat = await lstat(full);
        if (options.maxFileBytes !== undefined && stat.size > options.maxFileBytes) {
          options.onSkipped?.({ path, size: stat.size });
          continue;
        }
        files.push({ path, mode: stat.mode & 0o777, data: await readFile(full) });
      }
    }
  };
  await walk(root);
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
