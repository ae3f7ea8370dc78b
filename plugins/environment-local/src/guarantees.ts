import { onPath } from './host-tools.js';
import type { LocalOptions } from './options.js';
import { cgroupProblem } from './sandbox-cgroup.js';
import { limitMechanism, limitProblem } from './sandbox-limits.js';
import { privilegeDropProblem } from './sandbox-user.js';

/** What this host lets the local environment do for its sandboxes: each field says why not, or undefined. */
export interface HostReport {
  /** A host user of their own for each sandbox (root, setpriv). */
  user: string | undefined;
  /** A cgroup per call (plain mode's containment). */
  cgroup: string | undefined;
  memory: string | undefined;
  pids: string | undefined;
  /** How memory and pids are enforced where they are. */
  memoryBy?: string;
  pidsBy?: string;
  /** prlimit, for RLIMIT_FSIZE (a file past the disk limit) and RLIMIT_NPROC. */
  prlimit: string | undefined;
}

/** This host, probed (once per process). */
export function hostReport(): HostReport {
  const user = privilegeDropProblem();
  const memoryBy = limitMechanism('memory');
  // Without a pids cgroup, a user of the sandbox's own is held by RLIMIT_NPROC.
  const pidsBy =
    limitMechanism('pids') ?? (user === undefined && onPath('prlimit') ? 'RLIMIT_NPROC' : undefined);
  return {
    user,
    cgroup: cgroupProblem(),
    memory: limitProblem('memory'),
    pids: pidsBy === undefined ? limitProblem('pids') : undefined,
    ...(memoryBy ? { memoryBy } : {}),
    ...(pidsBy ? { pidsBy } : {}),
    prlimit: onPath('prlimit') ? undefined : 'prlimit (Debian: util-linux) is not on PATH',
  };
}

export const noIsolationWarning =
  "environment 'local' has no isolation: the agent can read and write everything the runner's user can (its environment through /proc, the tasks' hidden cases and reference solutions, the run directory) and reach every host port; use isolation: bubblewrap, or the docker environment, for agents you do not trust";

/** Plain mode on a host that gives its sandboxes no cgroups: which process escapes, and why. */
export function uncontainedWarning(problem: string, ownUser: boolean): string {
  const outlives = ownUser
    ? 'outlives its step (its sandbox, which ends every process of its user, ends it)'
    : 'outlives its step and the run';
  return `environment 'local' (isolation: none) cannot end every process a command starts: ${problem}. A process started with a cleared environment (env -i) in a session of its own (setsid) ${outlives}; run as root on a host with a writable cgroup v2 hierarchy, or use isolation: bubblewrap, to end it with its call`;
}

/** What a user must know before a run with these options on this host, one line each. */
export function localWarnings(options: LocalOptions, host: HostReport): string[] {
  const warnings: string[] = [];
  const plain = options.isolation === 'none';
  if (plain) warnings.push(noIsolationWarning);
  if (plain && host.user !== undefined)
    warnings.push(
      `environment 'local' runs the agent's commands as the runner's own user: ${host.user}; run as root to give each sandbox an unprivileged host user of its own`,
    );
  if (plain && host.cgroup !== undefined)
    warnings.push(uncontainedWarning(host.cgroup, host.user === undefined));
  const unenforced = [
    host.memory === undefined ? undefined : `memory: ${options.memory} (${host.memory})`,
    host.pids === undefined ? undefined : `pids: ${options.pids} (${host.pids})`,
  ].filter((line): line is string => line !== undefined);
  if (unenforced.length > 0)
    warnings.push(
      `environment 'local' cannot hold its sandboxes to ${unenforced.join(' and ')}: an agent can take the host's memory or processes; run as root where cgroups are writable, or use the docker environment`,
    );
  if (host.prlimit !== undefined)
    warnings.push(
      `environment 'local' cannot stop a single file at the disk limit (${host.prlimit}): files are measured while commands run, so a fast writer can pass disk: ${options.disk} by what it writes between two measures`,
    );
  return warnings;
}

/** How a sandbox of these options is isolated and limited on this host, in one line. */
export function localGuarantee(options: LocalOptions, host: HostReport): string {
  const isolation =
    options.isolation === 'bubblewrap'
      ? 'namespaces of its own (PID, mount, IPC, UTS, network with only the gateway): only the workspace, HOME and /tmp are writable, hidden cases, the run directory and host ports are out of reach, /proc/sys and other kernel knobs are read-only'
      : "no isolation (commands see the host's files, network and processes)";
  const user =
    host.user === undefined
      ? `its commands run as an unprivileged host user of its own (a uid from ${options.uids.first}, no groups, no setuid)`
      : "its commands run as the runner's user";
  const cells =
    options.isolation === 'bubblewrap'
      ? 'a PID namespace per call'
      : host.cgroup === undefined
        ? 'a cgroup per call they cannot leave'
        : 'no cgroup (what a command detaches is found by its environment and user)';
  const limits = [
    `${options.pids} processes${host.pidsBy ? ` (${host.pidsBy})` : ' (not enforced)'}`,
    `${options.memory} memory${host.memoryBy ? ` (${host.memoryBy})` : ' (not enforced)'}`,
    `${options.disk} disk (${host.prlimit === undefined ? 'RLIMIT_FSIZE per file, ' : ''}measured while commands run)`,
  ];
  return `environment local (isolation: ${options.isolation}): ${isolation}; ${user}, in ${cells}; limits per sandbox: ${limits.join(', ')}`;
}
