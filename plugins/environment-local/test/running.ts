import { readFile } from 'node:fs/promises';

/** Running, not a zombie waiting to be reaped (pid 1 of a container may never reap it). */
export async function running(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
