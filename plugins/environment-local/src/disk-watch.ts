import { DiskWatch, diskUsage, heldRemovedBytes } from '@longhaul/core';
import { onPath } from './host-tools.js';
import { dropArgs, type SandboxUser } from './sandbox-user.js';

/**
 * The disk limit of a sandbox's folders (workspace, HOME, TMPDIR), watched while commands run: no
 * file system here gives a folder a quota, so `du` measures them as the sandbox's own user (so
 * nothing the agent made can steer it), paced by the kernel's DiskWatch, and past the limit
 * `onExceeded` stops the sandbox's processes. Files its processes removed but hold open count
 * too (where cgroups name its processes). A single file cannot grow past the limit at all
 * (RLIMIT_FSIZE, see command-wrapper.ts); many files can until the next measure.
 */
export function folderDiskWatch(
  paths: readonly string[],
  limitBytes: number,
  user: SandboxUser | undefined,
  /** The sandbox's processes: files they removed but hold open count too. */
  processes: () => Promise<number[]>,
  onExceeded: (usedBytes: number) => Promise<void>,
): DiskWatch {
  const setpriv = user ? onPath('setpriv') : undefined;
  const prefix = user && setpriv ? [setpriv, ...dropArgs(user), '--'] : [];
  return new DiskWatch({
    limitBytes,
    measure: async () => {
      const files = await diskUsage(paths, prefix);
      const held = await heldRemovedBytes(await processes()).catch(() => 0);
      return files === undefined ? undefined : files + held;
    },
    probe: paths[0],
    onExceeded,
  });
}
