import { rm } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { WorkspaceHandle } from '@longhaul/core';

/**
 * Removes a sandbox's folder without ever following a link out of it. Node's `rm` never follows
 * a link it finds, but it checks each entry by path and then opens it by path: a process of the
 * sandbox still running could swap a folder for a link to `/` in between. So `rm` (about twice as
 * fast) only where no process of the sandbox can be left (`contained`: its cgroup or PID namespace
 * was ended); otherwise, and for trees nested deeper than PATH_MAX, which `rm` cannot name
 * (ENAMETOOLONG), directory handles that refuse links at every level.
 */
export async function removeSandboxFolder(root: string, contained: boolean): Promise<void> {
  const byHandles = () => new WorkspaceHandle(dirname(root)).remove(basename(root));
  if (!contained) return byHandles();
  await rm(root, { recursive: true, force: true }).catch(byHandles);
}
