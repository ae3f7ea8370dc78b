import { readFile } from 'node:fs/promises';

/**
 * The Docker daemon runs containers as ordinary processes of this host, so their process tree
 * and cgroups are visible here under their host pids.
 */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  /** Clock ticks after boot at which the process started: tells a process from a reused pid. */
  start: number;
  /** A zombie (`Z`) or dead (`X`) process cannot be killed any more. */
  state: string;
}

/** One process as /proc shows it, or undefined once it is gone. */
export async function processEntry(pid: number): Promise<ProcessEntry | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: parse after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, ppid: Number(fields[1]), start: Number(fields[19]), state: fields[0] ?? '' };
  } catch {
    return undefined; // exited
  }
}

/** The processes of `pids` that still run (a list read a moment ago may hold some that exited). */
export async function processTable(pids: readonly number[]): Promise<ProcessEntry[]> {
  const entries = await Promise.all(pids.map(processEntry));
  return entries.filter((e): e is ProcessEntry => e !== undefined);
}

/** The pid a host process has inside its container's pid namespace. */
export async function namespacePid(hostPid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${hostPid}/status`, 'utf8');
    const line = /^NSpid:\s*(.+)$/m.exec(status)?.[1];
    const pids = line?.trim().split(/\s+/).map(Number);
    return pids?.[pids.length - 1];
  } catch {
    return undefined;
  }
}

/** Whether `hostPid` is a process of this host that runs in the container `containerId`. */
export async function runsInContainer(hostPid: number, containerId: string): Promise<boolean> {
  try {
    return (await readFile(`/proc/${hostPid}/cgroup`, 'utf8')).includes(containerId);
  } catch {
    return false;
  }
}

export interface LimitCounters {
  /** Processes the kernel killed for memory in the container so far. */
  oomKills: number;
  /** Times a fork failed because the container was at its pids limit. */
  pidsMax: number;
}

async function counter(file: string, key: string): Promise<number> {
  try {
    const text = await readFile(file, 'utf8');
    return Number(new RegExp(`^${key}\\s+(\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * The container's cgroups, found through its init process: the processes it holds (so a kill
 * looks at the container's few processes, not the whole host) and its memory and pids counters.
 */
export class ContainerCgroup {
  private constructor(
    private readonly memory: string,
    private readonly pids: string,
    private readonly v2: boolean,
  ) {}

  static async of(initPid: number): Promise<ContainerCgroup> {
    const lines = (await readFile(`/proc/${initPid}/cgroup`, 'utf8')).trim().split('\n');
    const path = (controller: string) =>
      lines.map((l) => l.split(':')).find((parts) => parts[1]?.split(',').includes(controller))?.[2];
    const memory = path('memory');
    const pids = path('pids');
    if (memory !== undefined && pids !== undefined) {
      return new ContainerCgroup(`/sys/fs/cgroup/memory${memory}`, `/sys/fs/cgroup/pids${pids}`, false);
    }
    const unified = lines.find((l) => l.startsWith('0::'))?.slice(3) ?? '/';
    return new ContainerCgroup(`/sys/fs/cgroup${unified}`, `/sys/fs/cgroup${unified}`, true);
  }

  async processes(): Promise<number[]> {
    const text = await readFile(`${this.pids}/cgroup.procs`, 'utf8').catch(() => '');
    return text.split('\n').filter(Boolean).map(Number);
  }

  async read(): Promise<LimitCounters> {
    const [oomKills, pidsMax] = await Promise.all([
      this.v2
        ? counter(`${this.memory}/memory.events`, 'oom_kill')
        : counter(`${this.memory}/memory.oom_control`, 'oom_kill'),
      counter(`${this.pids}/pids.events`, 'max'),
    ]);
    return { oomKills, pidsMax };
  }
}
