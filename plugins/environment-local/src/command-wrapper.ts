import { ClassifiedError } from '@longhaul/core';
import { onPath } from './host-tools.js';
import { dropArgs, type SandboxUser } from './sandbox-user.js';

/** What a sandbox command is put in before its program runs. */
export interface CommandFrame {
  /** cgroup.procs files the command's first process writes its pid to (as root, before anything else). */
  procs: readonly string[];
  /** Resource limits of every process it starts (prlimit): processes of its user, bytes per file. */
  rlimits?: { nproc?: number; fsizeBytes?: number };
  /** The host user it runs as (setpriv); without one, the runner's. */
  user?: SandboxUser;
}

/**
 * `argv` in its frame: a small /bin/sh joins the cgroups, then execs prlimit, which execs setpriv,
 * which execs the program, all in one process. The process is in its cgroups before the program's
 * first instruction and holds no privilege once it runs; a process of the sandbox's user cannot
 * write a cgroup's procs file, so nothing it starts ever leaves. A core dump is never written (a
 * killed process would fill the workspace with one). If a cgroup cannot be joined the program does
 * not run. The shell sets PWD: it is given back the value `env` has, or none.
 */
export function framedArgv(argv: string[], frame: CommandFrame, env: Record<string, string>): string[] {
  const framed = [...argv];
  if (frame.user) {
    const setpriv = onPath('setpriv');
    if (setpriv === undefined)
      throw new ClassifiedError(
        'sandbox',
        'setpriv (Debian: util-linux) is not on PATH: cannot drop privileges',
      );
    framed.unshift(setpriv, ...dropArgs(frame.user), '--');
  }
  const prlimit = onPath('prlimit');
  const limits = [
    '--core=0',
    ...(frame.rlimits?.nproc === undefined ? [] : [`--nproc=${frame.rlimits.nproc}`]),
    ...(frame.rlimits?.fsizeBytes === undefined ? [] : [`--fsize=${frame.rlimits.fsizeBytes}`]),
  ];
  if (prlimit !== undefined && frame.rlimits !== undefined) framed.unshift(prlimit, ...limits, '--');
  if (frame.procs.length === 0) return framed;
  const pwd = env.PWD === undefined ? 'unset PWD' : `export PWD='${env.PWD.replaceAll("'", `'\\''`)}'`;
  const join = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n - 1)); done';
  return [
    '/bin/sh',
    '-c',
    `${join}; ${pwd}; exec "$@"`,
    'longhaul-sandbox',
    String(frame.procs.length),
    ...frame.procs,
    ...framed,
  ];
}
