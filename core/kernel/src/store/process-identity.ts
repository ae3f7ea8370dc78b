import { readFile } from 'node:fs/promises';

/**
 * When process `pid` started: field 22 of /proc/<pid>/stat (clock ticks since boot), undefined
 * where there is no /proc or no such process. With the pid it names one process, since pids are
 * reused.
 */
export async function processStartTime(pid: number): Promise<string | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/**
 * Whether process `pid` on this host still runs and is the one that started at `started` (as
 * `processStartTime` gave it; without it, any process with that pid counts).
 */
export async function processAlive(pid: number, started: string | undefined): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it runs, as another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = await processStartTime(pid);
  return started === undefined || now === undefined || now === started;
}
