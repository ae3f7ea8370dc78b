import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The CPU quota of this process's cgroup, in cores (fractional), or undefined when it has none. */
export function cgroupCpuLimit(root = '/sys/fs/cgroup'): number | undefined {
  // cgroup v2: "max 100000" (no limit) or "<quota> <period>", in the process's own cgroup.
  const own = read('/proc/self/cgroup')
    ?.split('\n')
    .find((line) => line.startsWith('0::'))
    ?.slice(3);
  const v2 = (own && own !== '/' ? read(`${root}${own}/cpu.max`) : undefined) ?? read(`${root}/cpu.max`);
  if (v2 !== undefined) {
    const [quota, period] = v2.split(/\s+/);
    return quota === 'max' || !period ? undefined : Number(quota) / Number(period);
  }
  // cgroup v1: a quota of -1 is no limit.
  const quota = Number(read(`${root}/cpu/cpu.cfs_quota_us`));
  const period = Number(read(`${root}/cpu/cpu.cfs_period_us`));
  return quota > 0 && period > 0 ? quota / period : undefined;
}

/** Cores this process may use: `os.availableParallelism()`, lowered by the cgroup's CPU quota. */
export function availableCores(): number {
  const cores = availableParallelism();
  const quota = cgroupCpuLimit();
  return quota === undefined ? cores : Math.max(1, Math.min(cores, Math.ceil(quota)));
}
