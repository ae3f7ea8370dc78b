import { cp, mkdir, readdir, realpath, symlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * Installs the CLI and every workspace package into `dir`/node_modules as npm would from a
 * registry: the @longhaul packages copied (built, without tests), third-party packages linked
 * from the repository's node_modules. Returns the path of the `longhaul` bin.
 */
export async function installCopy(dir: string): Promise<string> {
  const modules = join(dir, 'node_modules');
  await mkdir(join(modules, '@longhaul'), { recursive: true });
  const repoModules = join(repoRoot, 'node_modules');
  for (const name of await readdir(repoModules)) {
    if (name === '@longhaul' || name === '.bin' || name.startsWith('.')) continue;
    await symlink(join(repoModules, name), join(modules, name));
  }
  for (const name of await readdir(join(repoModules, '@longhaul'))) {
    const source = await realpath(join(repoModules, '@longhaul', name));
    const target = join(modules, '@longhaul', name);
    await cp(source, target, {
      recursive: true,
      filter: (path) =>
        !['node_modules', 'test', '.turbo'].includes(basename(path)) || dirname(path) !== source,
    });
    // A package's own nested dependencies (versions that differ from the root's) stay linked.
    const nested = join(source, 'node_modules');
    const entries = await readdir(nested).catch(() => [] as string[]);
    if (entries.length > 0) await symlink(nested, join(target, 'node_modules'));
  }
  return join(modules, '@longhaul', 'cli', 'bin', 'longhaul.js');
}
