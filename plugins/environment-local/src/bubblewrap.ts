import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { ClassifiedError } from '@longhaul/core';
import { onPath, systemPath } from './host-tools.js';

/** The PATH of hardened commands: system directories only (the runner's may point into its HOME). */
export const hardenedPath = systemPath;

/** uid and gid of `user: agent` inside the sandbox's user namespace (`root` is 0 there). */
export const agentUid = 1000;

/** A host path visible read-only inside, at `target`. */
export interface ReadOnlyMount {
  source: string;
  target: string;
}

/** Where a hardened sandbox's own directories are (host paths; the same paths inside but /tmp). */
export interface HardenedPaths {
  workspace: string;
  /** Where commands see the workspace when not at its host path (a task's /app). */
  workspaceInside?: string;
  home: string;
  /** Bound at /tmp. */
  tmp: string;
  /** Holds the passwd and group files the sandbox sees. */
  etc: string;
  /** The judge area: bound (read-write) in commands run as root only. */
  judge?: string;
}

/** bwrap and nsenter, or a clear error naming what the host lacks. */
export async function hardeningTools(): Promise<{ bwrap: string; nsenter: string }> {
  const [bwrap, nsenter] = [onPath('bwrap'), onPath('nsenter')];
  const missing = [
    bwrap ? undefined : 'bwrap (Debian: apt-get install bubblewrap)',
    nsenter ? undefined : 'nsenter (Debian: util-linux)',
  ].filter(Boolean);
  if (!bwrap || !nsenter)
    throw new ClassifiedError(
      'sandbox',
      `environment local with isolation: bubblewrap needs ${missing.join(' and ')}, not found on PATH; install it or use isolation: none`,
    );
  return { bwrap, nsenter };
}

/**
 * The host's system directories, read-only: an allow-list. /usr and the top-level links or
 * directories of a merged or split /usr; /etc without the files that hold secrets. Nothing else
 * of the host (its HOME, /root, /tmp, /var, /opt, /srv, /run, /sys) is there.
 */
function systemMounts(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const path of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    if (!existsSync(path)) continue;
    if (lstatSync(path).isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
    else args.push('--ro-bind', path, path);
  }
  args.push('--ro-bind', '/etc', '/etc');
  for (const secret of [
    'shadow',
    'shadow-',
    'gshadow',
    'gshadow-',
    'sudoers',
    'security/opasswd',
    'environment',
  ]) {
    const path = `/etc/${secret}`;
    if (existsSync(path)) args.push('--ro-bind', '/dev/null', path);
  }
  for (const dir of ['ssh', 'sudoers.d', 'ssl/private']) {
    const path = `/etc/${dir}`;
    if (existsSync(path) && lstatSync(path).isDirectory()) args.push('--tmpfs', path, '--remount-ro', path);
  }
  return args;
}

let system: string[] | undefined;

/**
 * Mounts for a helper process (the network relay, the capability probe) that runs node and a
 * script: the system allow-list plus read-only `paths`. Never the whole host root: a recursive
 * bind of / also takes every container overlay the Docker daemon mounts, and one that goes away
 * meanwhile makes bwrap fail.
 */
export function helperMounts(paths: readonly string[]): string[] {
  system ??= systemMounts();
  return [...system, ...paths.flatMap((path) => ['--ro-bind', path, path]), '--dev', '/dev'];
}

/**
 * The host-wide knobs of a fresh /proc, made read-only or hidden as Docker does: kernel settings
 * (/proc/sys: core_pattern, whose pipe runs a program as root outside every namespace), the sysrq
 * trigger, and files that show kernel memory and keys. A user namespace already keeps its root
 * from writing them; this holds even where the sandbox's uid maps to a privileged host user.
 */
function procMounts(): string[] {
  const args: string[] = [];
  for (const path of ['/proc/sys', '/proc/sysrq-trigger', '/proc/fs', '/proc/irq', '/proc/bus'])
    if (existsSync(path)) args.push('--ro-bind', path, path);
  for (const path of [
    '/proc/kcore',
    '/proc/keys',
    '/proc/timer_list',
    '/proc/sched_debug',
    '/proc/latency_stats',
  ])
    if (existsSync(path)) args.push('--ro-bind', '/dev/null', path);
  return args;
}

let proc: string[] | undefined;

/** The files a hardened sandbox sees as /etc/passwd and /etc/group, naming its users. */
export function identityFiles(home: string): { passwd: string; group: string } {
  return {
    passwd: `root:x:0:0:root:/root:/bin/sh\nagent:x:${agentUid}:${agentUid}:agent:${home}:/bin/sh\n`,
    group: `root:x:0:\nagent:x:${agentUid}:\n`,
  };
}

/**
 * The argv that runs `argv` in a hardened sandbox: nsenter joins the sandbox's user and network
 * namespaces (held by its relay, `networkPid`), then bwrap makes a new user, PID, IPC and UTS
 * namespace and a mount namespace from the allow-list. The command is pid 2 under bwrap's init;
 * when it exits, or bwrap's parent (the runner) dies, the namespace and all it holds is killed.
 * Its uid maps to the host uid that runs nsenter: the sandbox's own user where the runner is root
 * (see command-wrapper.ts), never root itself.
 */
export function hardenedArgv(options: {
  tools: { bwrap: string; nsenter: string };
  networkPid: number;
  paths: HardenedPaths;
  mounts: readonly ReadOnlyMount[];
  user: 'agent' | 'root';
  cwd: string;
  argv: string[];
}): string[] {
  system ??= systemMounts();
  proc ??= procMounts();
  const { paths } = options;
  const id = String(options.user === 'root' ? 0 : agentUid);
  const inside = paths.workspaceInside ?? paths.workspace;
  // The cwd is a host path; in the workspace, it is where commands see the workspace.
  const rel = relative(paths.workspace, options.cwd);
  const cwd = rel === '' || (!rel.startsWith('..') && !isAbsolute(rel)) ? join(inside, rel) : options.cwd;
  return [
    options.tools.nsenter,
    `--target=${options.networkPid}`,
    '--user',
    '--net',
    '--preserve-credentials',
    '--',
    options.tools.bwrap,
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--die-with-parent',
    '--uid',
    id,
    '--gid',
    id,
    '--hostname',
    'sandbox',
    ...system,
    '--ro-bind',
    join(paths.etc, 'passwd'),
    '/etc/passwd',
    '--ro-bind',
    join(paths.etc, 'group'),
    '/etc/group',
    '--proc',
    '/proc',
    ...proc,
    '--dev',
    '/dev',
    '--bind',
    paths.tmp,
    '/tmp',
    '--bind',
    paths.home,
    paths.home,
    '--bind',
    paths.workspace,
    inside,
    ...(options.user === 'root' && paths.judge !== undefined ? ['--bind', paths.judge, paths.judge] : []),
    ...options.mounts.flatMap((mount) => ['--ro-bind', mount.source, mount.target]),
    '--chdir',
    cwd,
    '--',
    ...options.argv,
  ];
}

/** Quotes one word for a POSIX shell script. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The judge area's helper (see FolderJudgeArea): it runs a program under test that a judge
 * command (root, seeing the area) starts in a bwrap nested in the sandbox's, with PID and mount
 * namespaces of its own, every capability dropped (none comes back on exec: bwrap sets
 * no_new_privs), and the sandbox's view but the judge area swapped for an empty read-only folder
 * (`shared` paths of it bound read-only). The sandbox's user namespace maps a single id, so the
 * program keeps root's id there, without a privilege: it cannot unmount the cover, make a
 * namespace that uncovers it, or see the judge's processes (its /proc is its own). A new user
 * namespace would lock the mounts it inherits, and then no /proc could be mounted over the
 * sandbox's (its /proc/sys is covered). bwrap, its parent, is what a test runner kills: the
 * program dies with it.
 */
export function confineScript(bwrap: string, judge: string, shared: readonly string[]): string {
  const argv = [
    bwrap,
    '--unshare-pid',
    '--die-with-parent',
    '--cap-drop',
    'ALL',
    '--bind',
    '/',
    '/',
    '--tmpfs',
    judge,
    ...shared.flatMap((path) => ['--ro-bind', join(judge, path), join(judge, path)]),
    '--remount-ro',
    judge,
    '--proc',
    '/proc',
    '--',
    '/bin/sh',
    '-c',
    'umask 022 && exec "$@"',
    'sh',
  ];
  return `#!/bin/sh\nexec ${argv.map(shellWord).join(' ')} "$@"\n`;
}

/** bwrap reports a program it cannot start as exit 1 and a line; give the code a shell would. */
export function startFailureCode(exitCode: number | null, stderr: string): number | undefined {
  if (exitCode !== 1) return undefined;
  const match = /^bwrap: execvp [^\n]*: (No such file or directory|Permission denied)\n?$/m.exec(stderr);
  if (!match) return undefined;
  return match[1] === 'Permission denied' ? 126 : 127;
}

/** Why this host cannot run hardened sandboxes (no bwrap, no user namespaces), or undefined. */
export async function hardeningProblem(): Promise<string | undefined> {
  let bwrap: string;
  try {
    ({ bwrap } = await hardeningTools());
  } catch (error) {
    return (error as Error).message;
  }
  // execa is imported for this probe only, not when the environment loads.
  const { execa } = await import('execa');
  const result = await execa(bwrap, ['--unshare-user', '--unshare-net', ...helperMounts([]), 'true'], {
    reject: false,
    extendEnv: false,
    env: { PATH: hardenedPath },
  });
  return result.exitCode === 0
    ? undefined
    : `bwrap cannot create user and network namespaces here: ${String(result.stderr).trim() || `exit code ${result.exitCode}`}`;
}
