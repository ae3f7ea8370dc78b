import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';

/**
 * A run's id: its directory's name and a hash of the directory's absolute path. What a run names
 * after its id (its containers, network and sandbox folders, its queue jobs) is shared by no other
 * run, even one whose directory has the same name (`results/baseline` in two projects) on the same
 * Docker daemon or queue. Workers take the id from the trial spec, so a worker that mounts the run
 * directory at another path still uses the coordinator's id.
 */
export function runIdOf(dir: string): string {
  const path = resolve(dir);
  return `${basename(path)}-${createHash('sha256').update(path).digest('hex').slice(0, 8)}`;
}
