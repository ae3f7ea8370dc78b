import { spawnSync } from 'node:child_process';

/** A pid that belonged to a process which has ended. */
export function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout);
}
