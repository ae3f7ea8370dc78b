import { readFile, realpath, stat } from 'node:fs/promises';
import { ClassifiedError, type WorkspaceOwner } from '@longhaul/core';
import type Docker from 'dockerode';
import { agentUser } from './archive.js';

/** The workspace volume as this host sees it, and the host ids of the container's agent user. */
export interface WorkspaceVolume {
  /** The volume's folder on this host (realpath). */
  root: string;
  owner: WorkspaceOwner;
}

/** `id` of the container through a /proc/<pid>/uid_map or gid_map (`inside outside count` lines). */
function mapped(map: string, id: number): number | undefined {
  for (const line of map.trim().split('\n')) {
    const [inside, outside, count] = line.trim().split(/\s+/).map(Number);
    if (inside === undefined || outside === undefined || count === undefined) continue;
    if (id >= inside && id < inside + count) return outside + (id - inside);
  }
  return undefined;
}

/**
 * Where the runner reads and writes the container's workspace: the folder of its volume on this
 * host, checked to be the very folder the container sees at `workspace` (device and inode, through
 * the container's init), so file methods can go through the kernel's FolderWorkspace, which opens
 * every path beneath it by handles and never follows a link out, instead of through the Docker
 * API, which resolves links as root inside the container. What the runner writes there belongs to
 * the agent user as the container maps it (user namespaces included).
 */
export async function workspaceVolume(
  info: Docker.ContainerInspectInfo,
  workspace: string,
): Promise<WorkspaceVolume> {
  const mount = info.Mounts.find((m) => m.Destination === workspace);
  if (mount === undefined || mount.Source === '')
    throw new ClassifiedError('sandbox', `container ${info.Id.slice(0, 12)} has no volume at ${workspace}`);
  const pid = info.State.Pid;
  let root: string;
  try {
    root = await realpath(mount.Source);
    const [host, seen] = await Promise.all([stat(root), stat(`/proc/${pid}/root${workspace}`)]);
    if (host.dev !== seen.dev || host.ino !== seen.ino)
      throw new Error(`${mount.Source} is not the folder the container sees at ${workspace}`);
  } catch (error) {
    throw new ClassifiedError(
      'sandbox',
      `the docker environment reads and writes the workspace through its volume on this host (${mount.Source}), which this process cannot use: ${(error as Error).message}. Run the runner as root on the Docker host.`,
      { cause: error },
    );
  }
  const [uidMap, gidMap] = await Promise.all([
    readFile(`/proc/${pid}/uid_map`, 'utf8'),
    readFile(`/proc/${pid}/gid_map`, 'utf8'),
  ]);
  const uid = mapped(uidMap, agentUser.uid);
  const gid = mapped(gidMap, agentUser.gid);
  if (uid === undefined || gid === undefined)
    throw new ClassifiedError(
      'sandbox',
      `the container's user namespace maps no host id to the agent user ${agentUser.uid}:${agentUser.gid}`,
    );
  return { root, owner: { uid, gid } };
}
