import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ConfigError } from '../config/config-error.js';
import { writeFileAtomic } from '../store/atomic.js';
import type { RunStore } from '../store/run-store.js';
import { fsReason } from '../text/fs-reason.js';

/**
 * What a run directory holds before a run starts in it:
 * - `missing` / `empty`: a new run may start there;
 * - `unfinished`: only the temp file(s) of experiment.yaml, the first file a run writes: the run
 *   was killed before it began. Such a directory holds no run to resume; a new run reuses it
 *   (the leftovers are removed first);
 * - `occupied`: anything else (a run, or files that are not one).
 */
export interface RunDirState {
  state: 'missing' | 'empty' | 'unfinished' | 'occupied';
  dir: string;
  /** For `unfinished`: the temp files a new run removes. */
  leftovers: string[];
}

/** The temp file writeFileAtomic makes for experiment.yaml (`.<name>.<pid>.<hex>.tmp`). */
const firstWriteLeftover = /^\.experiment\.yaml\.\d+\.[0-9a-f]+\.tmp$/;

export async function runDirState(dir: string): Promise<RunDirState> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { state: 'missing', dir, leftovers: [] };
    const isFile = code === 'ENOTDIR' && (await stat(dir).catch(() => undefined))?.isFile();
    throw new ConfigError([
      {
        file: dir,
        message: isFile
          ? 'is a file, not a directory; give --run-dir a new or empty directory'
          : `cannot read the run directory: ${fsReason(error)}; choose another directory with --run-dir`,
      },
    ]);
  }
  if (entries.length === 0) return { state: 'empty', dir, leftovers: [] };
  if (entries.every((name) => firstWriteLeftover.test(name))) {
    return { state: 'unfinished', dir, leftovers: entries };
  }
  return { state: 'occupied', dir, leftovers: [] };
}

/** Why `resume` finds no run in a directory, and what to do. */
export function notARun(found: RunDirState): string {
  switch (found.state) {
    case 'missing':
      return 'no such run: the directory does not exist; check the path (runs are made under runs/ by default)';
    case 'empty':
      return `no run here: the directory is empty; start a run in it with \`longhaul run <experiment> --run-dir ${found.dir}\``;
    case 'unfinished':
      return `no run here: a run was stopped while it wrote its first file (${found.leftovers.join(', ')}), before any trial began; start it again with \`longhaul run <experiment> --run-dir ${found.dir}\`, which reuses this directory`;
    default:
      return 'not a run directory (it has no experiment.yaml)';
  }
}

const hints: Record<string, string> = {
  ENOSPC: 'free some space or choose another directory with --run-dir',
  EDQUOT: 'free some space or choose another directory with --run-dir',
  EROFS: 'choose a writable directory with --run-dir',
  EACCES: 'choose a writable directory with --run-dir',
  EPERM: 'choose a writable directory with --run-dir',
  ENOENT: 'choose a writable directory with --run-dir',
};

/**
 * Makes a new run's directory with its experiment.yaml and lock.json. When that fails (a full
 * disk, a read-only file system), whatever it made is removed again and the error says which
 * directory and why: a run that cannot start leaves nothing behind.
 */
export async function createRunDir(
  store: RunStore,
  found: RunDirState,
  files: { experiment: string; writeLock(): Promise<void> },
): Promise<void> {
  let made: string | undefined;
  try {
    made = await makeDirectories(store.dir);
    for (const name of found.leftovers) await rm(join(store.dir, name), { force: true });
    await writeFileAtomic(store.experimentFile, files.experiment);
    await files.writeLock();
  } catch (error) {
    const cleanup = made
      ? rm(made, { recursive: true, force: true })
      : Promise.all([store.experimentFile, store.lockFile].map((file) => rm(file, { force: true })));
    await cleanup.catch(() => {});
    const code = (error as NodeJS.ErrnoException).code ?? '';
    throw new ConfigError([
      {
        file: store.dir,
        message: `cannot create the run directory: ${fsReason(error)}; ${hints[code] ?? 'choose another directory with --run-dir'}`,
      },
    ]);
  }
}

/**
 * `mkdir -p` that returns the first directory it made. Node's own recursive mkdir never returns
 * on some file systems (under /proc it retries the parent forever); creating one level at a time
 * fails at once with the real reason.
 */
async function makeDirectories(dir: string): Promise<string | undefined> {
  const missing: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    const info = await stat(at).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (info) break;
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const [index, path] of missing.entries()) {
    try {
      await mkdir(path);
    } catch (error) {
      // Undo the levels made so far; the caller only knows the first.
      if (index > 0) await rm(missing[0]!, { recursive: true, force: true }).catch(() => {});
      throw error;
    }
  }
  return missing[0];
}
