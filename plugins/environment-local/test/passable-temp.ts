import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A temp folder sandboxes can be made in: mkdtemp's are closed to other users, and a sandbox's
 * own user (when the tests run as root) must pass through it to its workspace.
 */
export async function passableTemp(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await chmod(dir, 0o711);
  return dir;
}
