import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheWorkspace, lockCache } from '../src/cache-lock.js';

const work = await mkdtemp(join(tmpdir(), 'longhaul-swe-steps-lock-'));
afterAll(() => rm(work, { recursive: true, force: true }));

/** The start time /proc gives a process, as the lock records it. */
async function startTime(pid: number): Promise<string> {
  const stat = (await execa('cat', [`/proc/${pid}/stat`])).stdout;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

describe('one mining run per cache', () => {
  it('refuses a second run while the first is alive, naming it', async () => {
    const cache = join(work, 'busy');
    const first = await lockCache(cache);
    await expect(lockCache(cache)).rejects.toThrow(
      new RegExp(`is in use by another mining run \\(pid ${process.pid} on ${hostname()}`),
    );
    await first.release();
    const second = await lockCache(cache);
    expect(second.tookOver).toBe(false);
    await second.release();
    expect(existsSync(join(cache, 'mining.lock'))).toBe(false);
  });

  it('takes over the lock of a run that died and removes the working directories it left', async () => {
    const cache = join(work, 'dead');
    await mkdir(cache);
    const child = execa('sleep', ['30']);
    const pid = child.pid!;
    const started = await startTime(pid);
    child.kill('SIGKILL');
    await child.catch(() => undefined);
    await writeFile(
      join(cache, 'mining.lock'),
      JSON.stringify({ pid, host: hostname(), started, since: '2025-01-01T00:00:00Z' }),
    );
    const { tmpPrefix } = await cacheWorkspace(cache);
    await mkdir(join(tmpdir(), `${tmpPrefix}left`));
    const lock = await lockCache(cache);
    expect(lock.tookOver).toBe(true);
    expect((await readdir(tmpdir())).filter((entry) => entry.startsWith(tmpPrefix))).toEqual([]);
    await lock.release();
  });

  it('tells a reused process id from the run that held it', async () => {
    const cache = join(work, 'reused');
    await mkdir(cache);
    // This process is alive, but started at another time than the lock says: not the owner.
    await writeFile(
      join(cache, 'mining.lock'),
      JSON.stringify({ pid: process.pid, host: hostname(), started: '1', since: '2025-01-01T00:00:00Z' }),
    );
    const lock = await lockCache(cache);
    expect(lock.tookOver).toBe(true);
    await lock.release();
  });
});
