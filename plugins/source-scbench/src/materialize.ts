import { cp, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * With static assets, the workspace a problem starts from (and each reference workspace the oracle
 * writes) must hold the assets too, while the problem directory itself also holds the hidden tests
 * and solutions. So the source assembles those directories once per problem version in a cache
 * keyed by the problem's hash, leaving the problem directory unchanged.
 */
export function cacheDir(hash: string): string {
  return join(tmpdir(), 'longhaul-scbench', hash.replace(/^sha256:/, '').slice(0, 24));
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

/** `target` holds the files of `base` (when given) and every asset at its relative path. */
export async function assemble(
  target: string,
  root: string,
  assets: readonly string[],
  base?: string,
): Promise<string> {
  // The marker sits next to the directory, so it never becomes part of a workspace.
  const done = `${target}.complete`;
  if (await exists(done)) return target;
  const partial = `${target}.${process.pid}.partial`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  if (base) await cp(base, partial, { recursive: true });
  for (const asset of assets) await cp(join(root, asset), join(partial, asset), { recursive: true });
  await rm(target, { recursive: true, force: true });
  await rename(partial, target);
  await writeFile(done, '');
  return target;
}
