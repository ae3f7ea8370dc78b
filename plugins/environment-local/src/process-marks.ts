import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { processLauncher } from '@longhaul/core';

/**
 * The variable that marks every process of a plain local sandbox: `<sandbox id>/<call number>`.
 * A process keeps the environment it was started with through setsid, double forks, nohup and
 * disown, and Linux shows it in /proc/<pid>/environ, so whatever a command left running is found
 * again however it detached. (A program can start a child with a cleared environment: plain mode
 * is not isolation, see the README.)
 */
export const markVariable = 'LONGHAUL_SANDBOX';

export interface MarkedProcess {
  pid: number;
  /** The mark's value: `<sandbox id>/<call number>`. */
  mark: string;
}

function markIn(environ: Buffer, prefix: string): string | undefined {
  const needle = Buffer.from(`${markVariable}=${prefix}`);
  for (let at = environ.indexOf(needle); at !== -1; at = environ.indexOf(needle, at + 1)) {
    if (at > 0 && environ[at - 1] !== 0) continue;
    const start = at + markVariable.length + 1;
    const end = environ.indexOf(0, start);
    return environ.subarray(start, end === -1 ? undefined : end).toString('utf8');
  }
  return undefined;
}

/**
 * Pids known to carry no mark at all, so later scans skip them: reading every process's environ
 * costs a few hundred milliseconds on a loaded machine, and most processes of a host are never
 * ours. A mark is only ever inherited, so an unmarked process stays unmarked; the exception is a
 * child of the runner or of its process launcher between its fork and its exec (it still has its
 * parent's environment), which is why their children are never remembered. A pid that disappears is forgotten.
 * Processes of other users (their environ cannot be read) are remembered too: they cannot be ours.
 */
const unmarked = new Set<number>();

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Whether `parent` starts this runner's commands: the runner itself, or its process launcher. */
function startedHere(parent: number | undefined): boolean {
  return parent === process.pid || (parent !== undefined && parent === processLauncher.pid);
}

/** Processes of this host, readable by the runner's user, whose mark starts with `prefix`. */
export async function markedProcesses(prefix: string): Promise<MarkedProcess[]> {
  const names = await readdir('/proc').catch(() => [] as string[]);
  const pids = new Set(names.filter((name) => /^\d+$/.test(name)).map(Number));
  for (const pid of unmarked) if (!pids.has(pid)) unmarked.delete(pid);
  const anyMark = Buffer.from(`${markVariable}=`);
  const found = await Promise.all(
    [...pids]
      .filter((pid) => pid !== process.pid && !unmarked.has(pid))
      .map(async (pid) => {
        let environ: Buffer;
        try {
          environ = await readFile(`/proc/${pid}/environ`);
        } catch (error) {
          // Another user's (never ours to kill), or it exited while the table was read.
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') unmarked.add(pid);
          return undefined;
        }
        const mark = markIn(environ, prefix);
        if (mark !== undefined) return { pid, mark };
        // Empty: a kernel thread or a zombie.
        if (!environ.includes(anyMark) && !startedHere(parentOf(pid))) unmarked.add(pid);
        return undefined;
      }),
  );
  return found.filter((entry): entry is MarkedProcess => entry !== undefined);
}

/**
 * SIGKILLs every process whose mark starts with `prefix` and that `spare` does not keep. Scans
 * again until none is left, so a process that forks while it is being killed is caught too.
 */
export async function killMarked(
  prefix: string,
  spare: (mark: string) => boolean = () => false,
  rounds = 50,
): Promise<number> {
  let killed = 0;
  for (let round = 0; round < rounds; round++) {
    const targets = (await markedProcesses(prefix)).filter((entry) => !spare(entry.mark));
    if (targets.length === 0) break;
    for (const { pid } of targets) {
      try {
        process.kill(pid, 'SIGKILL');
        killed++;
      } catch {
        // already gone
      }
    }
    // A killed process shows its environment until it is gone: give the kernel a moment.
    await delay(20);
  }
  return killed;
}

/** Marks prefixes of the sandboxes open in this process, for the exit hook. */
const openPrefixes = new Set<string>();
let exitHookInstalled = false;

/**
 * SIGKILLs, synchronously, every process carrying one of the open prefixes: runs when the runner
 * exits with sandboxes still open, so what their commands detached does not outlive it.
 */
export function killOpenMarkedSync(): void {
  if (openPrefixes.size === 0) return;
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid)) {
    try {
      const environ = readFileSync(`/proc/${name}/environ`);
      if ([...openPrefixes].some((prefix) => markIn(environ, prefix) !== undefined))
        process.kill(Number(name), 'SIGKILL');
    } catch {
      // gone, or another user's
    }
  }
}

/** Registers (or, with `open` false, forgets) a sandbox whose processes die with the runner. */
export function trackOpen(prefix: string, open: boolean): void {
  if (!open) {
    openPrefixes.delete(prefix);
    return;
  }
  openPrefixes.add(prefix);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', killOpenMarkedSync);
  }
}
