import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The CLI package's own folder (src/ and dist/ both hold this file two levels below it). */
export const cliDir = fileURLToPath(new URL('../..', import.meta.url));

export interface InstalledPackage {
  /** Real path of the package's folder. */
  dir: string;
  version: string;
  dependencies: Record<string, string>;
}

/**
 * Finds `name` the way Node resolves a bare import from `from` (node_modules folders upwards),
 * without importing it or going through its exports. Undefined when it is not installed there.
 */
export function findInstalled(name: string, from: string): InstalledPackage | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) {
      const json = JSON.parse(readFileSync(manifest, 'utf8')) as Partial<InstalledPackage>;
      return {
        dir: realpathSync(dirname(manifest)),
        version: json.version ?? '0.0.0',
        dependencies: json.dependencies ?? {},
      };
    }
    if (dirname(dir) === dir) return undefined;
  }
}
