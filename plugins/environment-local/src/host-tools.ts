import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The system directories: the PATH of hardened commands, and where tools are looked for without a PATH. */
export const systemPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The executable `program` on the runner's PATH (the system directories where it has none), or undefined. */
export function onPath(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? systemPath).split(delimiter).filter(Boolean)) {
    const candidate = join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
