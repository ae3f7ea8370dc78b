import { basename, dirname } from 'node:path';
import { WorkspaceHandle } from '@longhaul/core';

/**
 * Removes a sandbox's folder without ever following a link out of it, by directory handles that
 * refuse links at every level (a process of the sandbox still running could swap a folder for a
 * link to `/` while it is removed), at any depth, holding a batch of names at a time. Node's own
 * `rm` is not used: it lists every folder of the tree before it removes any, so its memory grows
 * with the number of files (some 2 KiB a file: 1.8 GiB for a workspace of a million).
 */
export async function removeSandboxFolder(root: string): Promise<void> {
  await new WorkspaceHandle(dirname(root)).remove(basename(root));
}
