import { randomBytes } from 'node:crypto';
import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../config/config-error.js';
import { fsReason } from '../text/fs-reason.js';
import { processAlive, processStartTime } from './process-identity.js';

/** The file in a run directory that names the process writing the run. */
export const writerLockName = 'writer.lock';

/** Who writes a run: a process on a host, identified by pid and start time (pids are reused). */
export interface RunWriter {
  pid: number;
  host: string;
  /** Field 22 of /proc/<pid>/stat (clock ticks since boot), where there is a /proc. */
  processStart?: string;
  /** When it took the run, ISO 8601. */
  since: string;
  /** What it runs, for the error another process gets. */
  command: string;
}

/** Run directories this process holds, so a lock an earlier in-process attempt left is told apart. */
const held = new Set<string>();

/** Whether the writer, a process on this host, still runs (the same process, not a reused pid). */
function alive(writer: RunWriter, lockFile: string): Promise<boolean> {
  if (writer.pid === process.pid) return Promise.resolve(held.has(lockFile));
  return processAlive(writer.pid, writer.processStart);
}

async function readWriter(lockFile: string): Promise<RunWriter | 'missing' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(lockFile, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable';
  }
  try {
    const value = JSON.parse(text) as RunWriter;
    return Number.isInteger(value.pid) && typeof value.host === 'string' ? value : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/** The lock a process holds on a run directory while it writes the run. */
export interface WriterLock {
  readonly file: string;
  /** Removes the lock (if it is still this process's); safe to call more than once. */
  release(): Promise<void>;
}

export interface AcquireOptions {
  /** Take the run over from a writer on another host (or an unreadable lock) without asking. */
  force?: boolean;
  /** What this process runs, e.g. `longhaul resume`, recorded for others to read. */
  command?: string;
}

/**
 * Takes the run in `runDir` for this process, or throws a ConfigError naming the process that
 * writes it. The lock file is made whole and at once (a hard link of a complete temp file, which
 * fails when one exists). A lock of a dead process on this host is taken over; one from another
 * host is respected unless `force`, since its process cannot be seen from here.
 */
export async function acquireWriterLock(runDir: string, options: AcquireOptions = {}): Promise<WriterLock> {
  const file = join(runDir, writerLockName);
  const writer: RunWriter = {
    pid: process.pid,
    host: hostname(),
    processStart: await processStartTime(process.pid),
    since: new Date().toISOString(),
    command: options.command ?? 'longhaul',
  };
  const text = `${JSON.stringify(writer, null, 2)}\n`;
  const temp = join(runDir, `.${writerLockName}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fail = (message: string) => new ConfigError([{ file: runDir, message }]);
  try {
    await writeFile(temp, text);
  } catch (error) {
    throw fail(`cannot write ${writerLockName}: ${fsReason(error)}`);
  }
  try {
    // A few rounds: a lock that vanishes or is taken over between two steps is looked at again.
    for (let round = 0; round < 5; round++) {
      try {
        await link(temp, file);
        held.add(file);
        return {
          file,
          release: async () => {
            if (!held.delete(file)) return;
            const current = await readWriter(file);
            if (typeof current === 'object' && current.pid === writer.pid && current.since === writer.since)
              await rm(file, { force: true });
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
          throw fail(`cannot write ${writerLockName}: ${fsReason(error)}`);
      }
      const other = await readWriter(file);
      if (other === 'missing') continue;
      if (other === 'unreadable') {
        if (!options.force)
          throw fail(
            `${writerLockName} is unreadable, so whether a process still writes this run is unknown; if none does, run this again with --force`,
          );
      } else if (other.host !== writer.host) {
        if (!options.force)
          throw fail(
            `the run is being written by process ${other.pid} on host ${other.host} (\`${other.command}\`, since ${other.since}); wait for it to end, or if that process is gone, run this again with --force`,
          );
      } else if (await alive(other, file)) {
        throw fail(
          `the run is being written by process ${other.pid} (\`${other.command}\`, since ${other.since}); wait for it to end or stop it (kill ${other.pid}), then run this again`,
        );
      }
      // The writer is gone (or --force): move its lock aside, and put it back if another process
      // took the run over in between (what was moved is not the lock that was judged).
      const aside = `${file}.${process.pid}.stale`;
      try {
        await rename(file, aside);
      } catch {
        continue;
      }
      const moved = await readWriter(aside);
      if (
        typeof other === 'object' &&
        typeof moved === 'object' &&
        (moved.pid !== other.pid || moved.since !== other.since)
      ) {
        await link(aside, file).catch(() => {});
        await rm(aside, { force: true });
        continue;
      }
      await rm(aside, { force: true });
    }
    throw fail(`cannot take ${writerLockName}: other processes keep taking the run; try again`);
  } finally {
    await rm(temp, { force: true });
  }
}

/**
 * Whether a process writes the run now: `running` (a live process on this host holds its lock),
 * `elsewhere` (a writer on another host, whose process cannot be seen from here), or `none` (no
 * lock, an unreadable one, or its process is gone: the run was stopped or killed).
 */
export async function runWriterState(runDir: string): Promise<'running' | 'elsewhere' | 'none'> {
  const file = join(runDir, writerLockName);
  const writer = await readWriter(file);
  if (typeof writer !== 'object') return 'none';
  if (writer.host !== hostname()) return 'elsewhere';
  return (await alive(writer, file)) ? 'running' : 'none';
}
