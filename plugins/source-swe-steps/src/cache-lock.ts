import { readFileSync } from 'node:fs';
import { mkdir, open, readdir, readFile, realpath, rm, unlink } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '@longhaul/core';
import { execa } from 'execa';
import type { Workspace } from './validate.js';
import { MineInputError } from './window.js';

const lockFile = 'mining.lock';

interface Owner {
  pid: number;
  host: string;
  /** The process's start time in clock ticks since boot (/proc/PID/stat), to tell a reused pid. */
  started?: string;
  since: string;
}

function startTime(pid: number): string | undefined {
  try {
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function alive(owner: Owner): boolean {
  if (owner.host !== hostname()) return true;
  if (owner.started !== undefined) return startTime(owner.pid) === owner.started;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A mining run's hold on its cache directory: one run at a time, and what a dead one left is swept. */
export interface CacheLock {
  /** Where this run's containers and temporary directories are marked as the cache's. */
  workspace: Workspace;
  /** Whether a run that died (killed, crashed) held the cache before: its leftovers were removed. */
  tookOver: boolean;
  release(): Promise<void>;
}

/** The label value and temporary-directory prefix of a cache directory's containers and jobs. */
export async function cacheWorkspace(cacheDir: string): Promise<Workspace> {
  const id = sha256(await realpath(cacheDir)).slice(0, 16);
  return { tmpPrefix: `longhaul-swe-steps-${id}-`, labels: { 'longhaul.swe-steps.cache': id } };
}

/**
 * Takes the cache directory for this run. Another live run on it is an error (two runs would
 * validate the same PRs twice); a dead run's lock is taken over, and its containers (labelled
 * with the cache) and temporary directories are removed first, so that a run killed with -9
 * costs nothing once resumed.
 */
export async function lockCache(cacheDir: string): Promise<CacheLock> {
  await mkdir(cacheDir, { recursive: true });
  const workspace = await cacheWorkspace(cacheDir);
  const file = join(cacheDir, lockFile);
  const me: Owner = {
    pid: process.pid,
    host: hostname(),
    started: startTime(process.pid),
    since: new Date().toISOString(),
  };
  let tookOver = false;
  for (;;) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(`${JSON.stringify(me)}\n`);
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let owner: Owner | undefined;
    try {
      owner = JSON.parse(await readFile(file, 'utf8')) as Owner;
    } catch {
      // Unreadable or half-written: its writer died between creating and writing it.
    }
    if (owner && alive(owner))
      throw new MineInputError(
        `${cacheDir} is in use by another mining run (pid ${owner.pid} on ${owner.host}, since ${owner.since}): wait for it to finish or stop it${owner.host === hostname() ? '' : `, or remove ${file} if no run is active on ${owner.host}`}`,
      );
    await unlink(file).catch(() => undefined);
    tookOver = true;
  }
  if (tookOver) await sweep(workspace);
  return {
    workspace,
    tookOver,
    release: () => unlink(file).catch(() => undefined),
  };
}

/** Removes the containers and temporary directories a dead run of this cache left. */
async function sweep(workspace: Workspace): Promise<void> {
  const [[key, value]] = Object.entries(workspace.labels) as [[string, string]];
  const listed = await execa('docker', ['ps', '--all', '--quiet', '--filter', `label=${key}=${value}`], {
    reject: false,
  });
  const ids = String(listed.stdout).split('\n').filter(Boolean);
  if (ids.length > 0) await execa('docker', ['rm', '--force', ...ids], { reject: false });
  for (const entry of await readdir(tmpdir()).catch(() => []))
    if (entry.startsWith(workspace.tmpPrefix))
      await rm(join(tmpdir(), entry), { recursive: true, force: true }).catch(() => undefined);
}
