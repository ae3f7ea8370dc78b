import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processAlive, processStartTime } from '@longhaul/core';
import { killMarked } from './process-marks.js';
import { endSandboxCgroup, removeIdleCgroups } from './sandbox-cgroup.js';
import { removeSandboxFolder } from './sandbox-folder.js';
import { removeLimitCgroups } from './sandbox-limits.js';
import { endUserProcesses, reclaimUsers, releaseSandboxUser } from './sandbox-user.js';

/** Every sandbox folder is named `longhaul-…` and holds this label. */
export const folderPrefix = 'longhaul-';
export const labelFile = 'sandbox.json';

/** Whose a sandbox folder is: the run, and the runner process that owns it. */
export interface SandboxLabel {
  runId: string;
  trialId: string;
  purpose: string;
  /** The owner's pid, and its start time (so a recycled pid is not taken for the owner). */
  pid: number;
  started: string | undefined;
  /** The host uid of the sandbox's own user, when it had one. */
  uid?: number;
  /** Its cgroups outside the v2 hierarchy's `longhaul` folder (the v1 ones of its limits). */
  cgroups?: string[];
}

export async function writeLabel(root: string, owner: Omit<SandboxLabel, 'pid' | 'started'>): Promise<void> {
  const label: SandboxLabel = { ...owner, pid: process.pid, started: await processStartTime(process.pid) };
  await writeFile(join(root, labelFile), `${JSON.stringify(label)}\n`);
}

async function readLabel(root: string): Promise<SandboxLabel | undefined> {
  try {
    const label = JSON.parse(await readFile(join(root, labelFile), 'utf8')) as SandboxLabel;
    return typeof label.runId === 'string' && Number.isInteger(label.pid) ? label : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes the sandbox folders under `base` whose owner process is dead (a runner that was killed),
 * with `runId` only those of that run, and ends what their commands left running first. Folders of
 * live runners, and folders without a label, are left alone.
 */
export async function reclaimSandboxes(base: string, runId?: string): Promise<{ removed: string[] }> {
  const names = await readdir(base).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names.filter((n) => n.startsWith(folderPrefix)).sort()) {
    const root = join(base, name);
    const label = await readLabel(root);
    if (
      !label ||
      (runId !== undefined && label.runId !== runId) ||
      (await processAlive(label.pid, label.started))
    )
      continue;
    // Its cgroup holds every process its commands left (where the host gave it one), and so does
    // its user (where it had one of its own); the marks find those of a sandbox without either,
    // but for any started with a cleared environment.
    await endSandboxCgroup(name);
    const user = label.uid === undefined ? undefined : { uid: label.uid, gid: label.uid };
    if (user) await endUserProcesses(user);
    await killMarked(`${name}/`);
    await removeLimitCgroups(label.cgroups ?? []);
    await removeSandboxFolder(root);
    if (user) await releaseSandboxUser(user);
    removed.push(root);
  }
  await removeIdleCgroups();
  // Uids whose runner died before it wrote a label, or whose folder is gone: only a prune frees them.
  if (runId === undefined) await reclaimUsers();
  return { removed };
}
