import { rmSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../store/process-identity.js';

/**
 * Folders for a workspace's stamps (see stamps.ts) in the system's temp folder, for sandboxes with
 * no host folder of their own. Each is named after the process that made it, removed when that
 * process ends, and, when it was killed before it could, by the next process that makes one (or
 * by removeStaleStampsFolders, which `prune` calls).
 */
const prefix = 'longhaul-stamps-';
/** `longhaul-stamps-<pid>-<random>`: the process that made the folder. */
const named = /^longhaul-stamps-(\d+)-[^/]+$/;

const leftAtExit = new Set<string>();
let exitHooked = false;
let swept = false;

/** Removes the stamps folders in `parent` whose process has ended; returns their names. */
export async function removeStaleStampsFolders(parent = tmpdir()): Promise<string[]> {
  const names = await readdir(parent).catch(() => [] as string[]);
  const stale: string[] = [];
  for (const name of names) {
    const pid = Number(named.exec(name)?.[1]);
    if (pid > 0 && pid !== process.pid && !(await processAlive(pid, undefined))) stale.push(name);
  }
  await Promise.all(stale.map((name) => rm(join(parent, name), { recursive: true, force: true })));
  return stale;
}

/** A new stamps folder in the system's temp folder, removed when this process exits. */
export async function makeStampsFolder(): Promise<string> {
  if (!swept) {
    swept = true;
    await removeStaleStampsFolders().catch(() => undefined);
  }
  const dir = await mkdtemp(join(tmpdir(), `${prefix}${process.pid}-`));
  if (!exitHooked)
    process.once('exit', () => {
      for (const left of leftAtExit) rmSync(left, { recursive: true, force: true });
    });
  exitHooked = true;
  leftAtExit.add(dir);
  return dir;
}

/** Removes a folder makeStampsFolder made (or, if it was not one, just that folder). */
export async function removeStampsFolder(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  leftAtExit.delete(dir);
}
