import { describe, expect, it } from 'vitest';
import local, { type HostReport, localGuarantee, localOptions, localWarnings } from '../src/index.js';

const root: HostReport = {
  user: undefined,
  cgroup: undefined,
  memory: undefined,
  pids: undefined,
  memoryBy: 'cgroup v1',
  pidsBy: 'cgroup v1',
  prlimit: undefined,
};
const notRoot: HostReport = {
  user: 'the runner is not root (uid 1000), so it cannot give them a user of their own',
  cgroup: 'the cgroup v2 hierarchy at /sys/fs/cgroup is not writable by this user (EACCES)',
  memory: 'the memory cgroup hierarchy at /sys/fs/cgroup/memory is not writable by this user (EACCES)',
  pids: 'the pids cgroup hierarchy at /sys/fs/cgroup/pids is not writable by this user (EACCES)',
  prlimit: undefined,
};
const plain = localOptions.parse({});
const hardened = localOptions.parse({ isolation: 'bubblewrap', memory: '2g', pids: 256, disk: '5g' });

describe('what validate and run say of the local environment', () => {
  it('warns of nothing but plain mode itself where the runner is root with cgroups', () => {
    expect(localWarnings(plain, root)).toEqual([
      expect.stringMatching(/^environment 'local' has no isolation/),
    ]);
    expect(localWarnings(hardened, root)).toEqual([]);
  });

  it('says in one line each what a runner that is not root loses: its own user, cgroups, limits', () => {
    const lines = localWarnings(plain, notRoot);
    expect(lines).toEqual([
      expect.stringMatching(/^environment 'local' has no isolation/),
      "environment 'local' runs the agent's commands as the runner's own user: the runner is not root (uid 1000), so it cannot give them a user of their own; run as root to give each sandbox an unprivileged host user of its own",
      expect.stringMatching(
        /^environment 'local' \(isolation: none\) cannot end every process a command starts: the cgroup v2 hierarchy .* outlives its step and the run;/,
      ),
      expect.stringMatching(
        /^environment 'local' cannot hold its sandboxes to memory: 4g \(the memory cgroup .*\) and pids: 512 \(the pids cgroup .*\): an agent can take the host's memory or processes/,
      ),
    ]);
    for (const line of lines) expect(line).not.toContain('\n');
    // Hardened mode keeps its namespaces: only the limits are lost.
    expect(localWarnings(hardened, notRoot)).toEqual([
      expect.stringMatching(/^environment 'local' cannot hold its sandboxes to memory: 2g .* and pids: 256/),
    ]);
  });

  it('says a root runner without cgroups ends escaped processes with the sandbox (its user), and holds pids by RLIMIT_NPROC', () => {
    const noCgroups: HostReport = {
      ...root,
      cgroup: notRoot.cgroup,
      memory: notRoot.memory,
      memoryBy: undefined,
      pidsBy: 'RLIMIT_NPROC',
    };
    const lines = localWarnings(plain, noCgroups);
    expect(lines[1]).toMatch(
      /outlives its step \(its sandbox, which ends every process of its user, ends it\)/,
    );
    expect(lines[2]).toMatch(/^environment 'local' cannot hold its sandboxes to memory: 4g \(/);
    expect(lines[2]).not.toMatch(/pids/);
    expect(localGuarantee(plain, noCgroups)).toMatch(
      /512 processes \(RLIMIT_NPROC\), 4g memory \(not enforced\)/,
    );
  });

  it('warns when no file can be stopped at the disk limit (no prlimit)', () => {
    expect(
      localWarnings(hardened, { ...root, prlimit: 'prlimit (Debian: util-linux) is not on PATH' }),
    ).toEqual([expect.stringMatching(/cannot stop a single file at the disk limit .* pass disk: 5g/)]);
  });

  it('gives, for validate, each mode’s guarantee on this kind of host', () => {
    expect(localGuarantee(plain, root)).toBe(
      "environment local (isolation: none): no isolation (commands see the host's files, network and processes); its commands run as an unprivileged host user of its own (a uid from 1879048192, no groups, no setuid), in a cgroup per call they cannot leave; limits per sandbox: 512 processes (cgroup v1), 4g memory (cgroup v1), 10g disk (RLIMIT_FSIZE per file, measured while commands run)",
    );
    expect(localGuarantee(hardened, notRoot)).toBe(
      "environment local (isolation: bubblewrap): namespaces of its own (PID, mount, IPC, UTS, network with only the gateway): only the workspace, HOME and /tmp are writable, hidden cases, the run directory and host ports are out of reach, /proc/sys and other kernel knobs are read-only; its commands run as the runner's user, in a PID namespace per call; limits per sandbox: 256 processes (not enforced), 2g memory (not enforced), 5g disk (RLIMIT_FSIZE per file, measured while commands run)",
    );
    expect(local.guarantees?.(plain, { tasks: [] })).toEqual([
      expect.stringMatching(/^environment local \(isolation: none\)/),
    ]);
  });
});
