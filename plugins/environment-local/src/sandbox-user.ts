import { randomInt } from 'node:crypto';
import { constants, lstatSync, statSync } from 'node:fs';
import { lchown, lstat, mkdir, open, readdir, readFile, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { processAlive, processLauncher, processStartTime } from '@longhaul/core';
import { onPath } from './host-tools.js';

/**
 * When the runner is root, a sandbox's commands run as a host user of their own: a uid no account
 * has, claimed for the sandbox's lifetime (one per sandbox, so two trials cannot touch each
 * other's processes or files), with no supplementary groups and no way to regain privileges
 * (setpriv's no_new_privs: setuid programs such as sudo do not elevate). Such a user cannot write
 * the host's kernel settings, the runner's files or cgroups, nor read the runner's environment in
 * /proc, and every process it has can be found and ended by its uid alone.
 */

/** A sandbox's host user: uid and gid (the same number). */
export interface SandboxUser {
  uid: number;
  gid: number;
}

/** The range sandbox uids are taken from: `count` uids from `first`. */
export interface UidRange {
  first: number;
  count: number;
}

/** Where claims of uids live: one file per uid in use, naming the runner that holds it. */
const claimDir = '/run/longhaul/uids';

let problem: { value: string | undefined } | undefined;

/**
 * Why this host's sandbox commands run as the runner's own user instead of one of their own, or
 * undefined when they do not: the runner is not root, or util-linux's setpriv is missing.
 */
export function privilegeDropProblem(): string | undefined {
  if (problem) return problem.value;
  const uid = process.getuid?.();
  let value: string | undefined;
  if (uid !== 0)
    value = `the runner is not root (uid ${uid ?? 'unknown'}), so it cannot give them a user of their own`;
  else if (onPath('setpriv') === undefined)
    value = 'setpriv (Debian: util-linux) is not on PATH, so the runner cannot drop its privileges';
  problem = { value };
  return value;
}

/**
 * The first folder on the way to `path` (itself included) that other users cannot search, or
 * undefined: a sandbox's own user reaches a host path only when every folder above it lets others in.
 */
export function unreachableFolder(path: string): string | undefined {
  const folders: string[] = [];
  for (let at = path; ; at = dirname(at)) {
    folders.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const folder of folders) {
    try {
      const stat = statSync(folder);
      if (stat.isDirectory() && (stat.mode & constants.S_IXOTH) === 0) return folder;
    } catch {
      return folder;
    }
  }
  return undefined;
}

/**
 * The folders of a PATH that a sandbox's user can search, in order: a root runner's own (a
 * pyenv's shims under /root) would answer "Permission denied" to its commands, a judge's
 * `python3` among them, where the next folder's program would run.
 */
export function reachablePath(path: string): string {
  return path
    .split(':')
    .filter((folder) => isAbsolute(folder) && unreachableFolder(folder) === undefined)
    .join(':');
}

/** Makes the claims' folder, root's alone; refuses one another user could have made or changed. */
async function claims(): Promise<string> {
  await mkdir(claimDir, { recursive: true, mode: 0o700 });
  for (const dir of [dirname(claimDir), claimDir]) {
    const stat = lstatSync(dir);
    if (!stat.isDirectory() || stat.uid !== 0 || (stat.mode & 0o022) !== 0)
      throw new Error(`${dir} must be a folder of root's that others cannot write`);
  }
  return claimDir;
}

/** The uids and gids /etc/passwd and /etc/group name. */
async function accountUids(): Promise<Set<number>> {
  const ids = new Set<number>();
  for (const file of ['/etc/passwd', '/etc/group']) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      const id = Number(line.split(':')[2]);
      if (Number.isInteger(id)) ids.add(id);
    }
  }
  return ids;
}

interface Claim {
  pid: number;
  started: string | undefined;
  /** The sandbox folder that has the uid. */
  sandbox: string;
}

async function readClaim(file: string): Promise<Claim | undefined> {
  try {
    const claim = JSON.parse(await readFile(file, 'utf8')) as Claim;
    return Number.isInteger(claim.pid) ? claim : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Claims a uid of `range` no other sandbox holds (a claim file made with O_EXCL), for `sandbox`.
 * Claims of runners that died stay until `reclaimUsers` ends their processes and frees them.
 */
export async function claimSandboxUser(range: UidRange, sandbox: string): Promise<SandboxUser> {
  const dir = await claims();
  const claim: Claim = { pid: process.pid, started: await processStartTime(process.pid), sandbox };
  const accounts = await accountUids();
  for (let attempt = 0; attempt < 200; attempt++) {
    const uid = range.first + randomInt(range.count);
    // Never an account's uid, nor one some process has: their processes are not the sandbox's.
    if (accounts.has(uid)) continue;
    let file: Awaited<ReturnType<typeof open>>;
    try {
      file = await open(
        join(dir, String(uid)),
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
        0o600,
      );
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    try {
      await file.writeFile(`${JSON.stringify(claim)}\n`);
    } finally {
      await file.close();
    }
    if ((await userProcesses(uid)).length === 0) return { uid, gid: uid };
    await rm(join(dir, String(uid)), { force: true });
  }
  throw new Error(
    `no free uid among ${range.count} from ${range.first} after 200 tries: raise the local option uids.count, or run longhaul prune`,
  );
}

/** Frees a claimed uid: only once none of its processes is left. */
export async function releaseSandboxUser(user: SandboxUser): Promise<void> {
  await rm(join(claimDir, String(user.uid)), { force: true });
}

/** Pids of the live processes (not zombies) whose real or effective uid is `uid`. */
export async function userProcesses(uid: number): Promise<number[]> {
  const names = await readdir('/proc').catch(() => [] as string[]);
  const found = await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        const status = await readFile(`/proc/${name}/status`, 'utf8').catch(() => '');
        const uids = /^Uid:\s+(\d+)\s+(\d+)/m.exec(status);
        const state = /^State:\s+(\S)/m.exec(status)?.[1];
        if (!uids || state === 'Z' || state === 'X') return undefined;
        return Number(uids[1]) === uid || Number(uids[2]) === uid ? Number(name) : undefined;
      }),
  );
  return found.filter((pid): pid is number => pid !== undefined);
}

/**
 * SIGKILLs every process of the user, from a process of that user (kill(-1) reaches exactly the
 * processes its user may signal, its own, with no pid read beforehand that could be reused), until
 * /proc shows none: a process forking meanwhile is caught in a later round.
 */
export async function endUserProcesses(user: SandboxUser): Promise<void> {
  // kill(-1) from root or a system account would reach the whole host: never for those.
  if (!Number.isInteger(user.uid) || user.uid < 1000 || user.uid === 65_534)
    throw new Error(`refusing to end every process of uid ${user.uid}: not a sandbox's own user`);
  const setpriv = onPath('setpriv');
  if (setpriv === undefined) return;
  for (let round = 0; round < 50 && (await userProcesses(user.uid)).length > 0; round++) {
    const launched = await processLauncher.launch(
      [setpriv, ...dropArgs(user), '--', '/bin/kill', '-KILL', '-1'],
      { cwd: '/', env: { PATH: '/usr/bin:/bin' }, maxOutputBytes: 1024, onOutput: () => undefined },
    );
    if (launched.pid === undefined) return;
    await launched.exit.catch(() => undefined);
    await delay(20);
  }
}

/** setpriv's arguments that make a process `user`, with no groups and no way back to privileges. */
export function dropArgs(user: SandboxUser): string[] {
  return [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--no-new-privs'];
}

/**
 * Gives `user` a tree the runner made (a seed copied in): every entry but links, which are never
 * followed. Only for a tree no process of `user` can change yet (before its first command).
 */
export async function chownTree(path: string, user: SandboxUser): Promise<void> {
  const stat = await lstat(path);
  if (stat.isSymbolicLink()) return;
  await lchown(path, user.uid, user.gid);
  if (!stat.isDirectory()) return;
  for (const entry of await readdir(path)) await chownTree(join(path, entry), user);
}

/**
 * Frees the uids whose claim's runner died (every claim, or those of the sandbox folders in
 * `sandboxes`), ending their processes first. Returns the uids freed.
 */
export async function reclaimUsers(sandboxes?: ReadonlySet<string>): Promise<number[]> {
  if (privilegeDropProblem() !== undefined) return [];
  const names = await readdir(claimDir).catch(() => [] as string[]);
  const freed: number[] = [];
  for (const name of names.filter((n) => /^\d+$/.test(n))) {
    const claim = await readClaim(join(claimDir, name));
    if (claim && (await processAlive(claim.pid, claim.started))) continue;
    if (sandboxes && (!claim || !sandboxes.has(claim.sandbox))) continue;
    const user = { uid: Number(name), gid: Number(name) };
    await endUserProcesses(user);
    await releaseSandboxUser(user);
    freed.push(user.uid);
  }
  return freed;
}
