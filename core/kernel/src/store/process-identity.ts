import { readFile } from 'node:fs/promises';

/**
 * The fields of /proc/<pid>/stat after the command (which may hold spaces and parentheses), so
 * that `fields[0]` is field 3 (the state) and `fields[19]` field 22 (the start time); undefined
 * where there is no /proc or no such process.
 */
async function statFields(pid: number): Promise<string[] | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * When process `pid` started: field 22 of /proc/<pid>/stat (clock ticks since boot), undefined
 * where there is no /proc or no such process. With the pid it names one process, since pids are
 * reused.
 */
export async function processStartTime(pid: number): Promise<string | undefined> {
  return (await statFields(pid))?.[19];
}

/**
 * Whether process `pid` on this host still runs and is the one that started at `started` (as
 * `processStartTime` gave it; without it, any process with that pid counts). A zombie (state
 * `Z`: it ended and its parent has not reaped it, as under an init that reaps no orphans) or a
 * dying process (`X`) does not run: it holds nothing, though signal 0 still reaches its pid.
 */
export async function processAlive(pid: number, started: string | undefined): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it runs, as another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const fields = await statFields(pid);
  if (!fields) return true;
  if (fields[0] === 'Z' || fields[0] === 'X') return false;
  return started === undefined || fields[19] === started;
}
