import type { PullOptions, WorkspaceFile } from '../contracts/index.js';
import { walkWorkspace } from '../workspace/walk.js';

/**
 * Reads a host directory (a task's seed or a step's reference solution) as workspace files,
 * sorted by path. Symlinks are kept as files holding their target, as snapshots carry them, and
 * never followed; FIFOs, sockets and devices are left out. With `maxFileBytes`, larger files are
 * left out unread; they, and names that are not UTF-8, are reported to `onSkipped`.
 */
export async function readDirectoryFiles(root: string, options: PullOptions = {}): Promise<WorkspaceFile[]> {
  const files: WorkspaceFile[] = [];
  await walkWorkspace(root, {
    visit: async (entry) => {
      const type = entry.type === 'special' ? 'file' : entry.type;
      if (options.only && !options.only({ path: entry.path, type, size: entry.size })) return false;
      if (entry.type === 'symlink') {
        files.push({ path: entry.path, mode: 0o120777, data: new TextEncoder().encode(entry.target ?? '') });
      } else if (entry.type === 'file') {
        const data = await entry.read(options.maxFileBytes);
        if (typeof data !== 'string') files.push({ path: entry.path, mode: entry.mode & 0o777, data });
        else
          options.onSkipped?.({
            path: entry.path,
            size: entry.size,
            ...(data === 'size' ? {} : { reason: data }),
          });
      }
      return undefined;
    },
    onSkipped: (skip) => options.onSkipped?.(skip),
  });
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
