import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { pidAlive } from './pid-alive.js';

/**
 * Tests that run the `longhaul` bin run built packages (dist/), not sources. These helpers build
 * the packages a test needs when their sources are newer than their dist. Test files of several
 * packages run at once, so one builds while the others wait on a lock directory: a build
 * rewrites dist under a running CLI otherwise.
 */

/** The workspace root: the nearest folder above `from` whose package.json has `workspaces`. */
export function workspaceRoot(from: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && 'workspaces' in JSON.parse(readFileSync(manifest, 'utf8'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no npm workspace root above ${from}`);
  }
}

/** The newest mtime of the files below `dir`; links are not followed (a recursive readdir would). */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.isFile()) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Whether every .js file in the package's dist is newer than every file of its src. */
export function builtAfterSources(packageDir: string): boolean {
  try {
    const dist = join(packageDir, 'dist');
    const built = readdirSync(dist)
      .filter((name) => name.endsWith('.js'))
      .reduce(
        (oldest, name) => Math.min(oldest, statSync(join(dist, name)).mtimeMs),
        Number.POSITIVE_INFINITY,
      );
    return built >= newestSource(join(packageDir, 'src'));
  } catch {
    return false;
  }
}

interface LockOwner {
  pid: number;
  host: string;
}

/** The lock's owner, or undefined while its taker has not finished writing it. */
async function readOwner(lock: string): Promise<LockOwner | undefined> {
  try {
    return JSON.parse(await readFile(join(lock, 'owner.json'), 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

/**
 * Runs `work` holding the lock directory `lock`. A lock left by a process of this host that is no
 * longer alive (a test killed mid-build) is taken over, so it never blocks later runs.
 */
export async function withLockDir<T>(lock: string, work: () => Promise<T>, timeoutMs = 900_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await mkdir(lock);
      await writeFile(join(lock, 'owner.json'), JSON.stringify({ pid: process.pid, host: hostname() }));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = await readOwner(lock);
      // The owner file is written just after mkdir: a lock without one (or with one half written)
      // is being taken now, unless it is old (its taker died in between).
      const orphan =
        !owner &&
        Date.now() -
          (await stat(lock).then(
            (s) => s.mtimeMs,
            () => Date.now(),
          )) >
          30_000;
      if (orphan || (owner && owner.host === hostname() && !pidAlive(owner.pid))) {
        await rm(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`waited ${timeoutMs} ms for ${lock} (held by pid ${owner?.pid ?? 'unknown'})`);
      }
      await new Promise((wake) => setTimeout(wake, 200));
    }
  }
  try {
    return await work();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/** Workspace package name → folder, for the workspace globs of the form `dir/*`. */
function workspacePackages(root: string): Map<string, string> {
  const globs: string[] = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).workspaces;
  const found = new Map<string, string>();
  for (const glob of globs.filter((entry) => entry.endsWith('/*'))) {
    const parent = join(root, glob.slice(0, -2));
    for (const name of existsSync(parent) ? readdirSync(parent) : []) {
      const manifest = join(parent, name, 'package.json');
      if (existsSync(manifest))
        found.set(JSON.parse(readFileSync(manifest, 'utf8')).name, join(parent, name));
    }
  }
  return found;
}

/** The given package folders and every workspace package they depend on, as absolute folders. */
function withDependencies(root: string, packages: string[]): string[] {
  const byName = workspacePackages(root);
  const seen = new Set<string>();
  const visit = (dir: string) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      const dependency = byName.get(name);
      if (dependency) visit(dependency);
    }
  };
  for (const pkg of packages) visit(resolve(root, pkg));
  return [...seen];
}

/**
 * Builds the given package folders (relative to the workspace root, e.g. `core/cli`) and the
 * workspace packages they depend on, when a package's sources are newer than its dist.
 */
export async function ensureBuilt(packages: string[], root = workspaceRoot(process.cwd())): Promise<void> {
  const all = withDependencies(root, packages);
  const stale = () => all.filter((dir) => !builtAfterSources(dir));
  if (stale().length === 0) return;
  // One lock per checkout, in it: two clones test side by side without waiting on each other's
  // builds, and every test run of the checkout sees it (each has a temp folder of its own).
  const cache = join(root, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  const lock = join(cache, 'longhaul-test-build.lock');
  await withLockDir(lock, async () => {
    // Another test file may have built them while this one waited.
    const filters = stale().map((dir) => `--filter=./${relative(root, dir)}`);
    if (filters.length === 0) return;
    await promisify(execFile)('npx', ['turbo', 'run', 'build', ...filters, '--output-logs=errors-only'], {
      cwd: root,
      timeout: 600_000,
    });
  });
}
