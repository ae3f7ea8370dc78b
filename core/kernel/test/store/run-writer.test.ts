import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isConfigError } from '../../src/config/config-error.js';
import { acquireWriterLock, type RunWriter, writerLockName } from '../../src/store/run-writer.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function runDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'longhaul-writer-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A process that stays alive until the test ends it. */
function sleeper(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
  return child;
}

async function startOf(pid: number): Promise<string> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

const lockOf = (dir: string) => join(dir, writerLockName);
const readLock = async (dir: string) => JSON.parse(await readFile(lockOf(dir), 'utf8')) as RunWriter;
const writeLock = (dir: string, writer: Partial<RunWriter>) =>
  writeFile(
    lockOf(dir),
    JSON.stringify({
      host: hostname(),
      since: '2026-01-01T00:00:00.000Z',
      command: 'longhaul run',
      ...writer,
    }),
  );

async function refusal(dir: string, options?: { force?: boolean }): Promise<string> {
  const error = await acquireWriterLock(dir, options).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isConfigError(error)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  return error.message;
}

describe('the writer lock of a run directory', () => {
  it('names this process while held, refuses a second holder, and is gone after release', async () => {
    const dir = await runDir();
    const lock = await acquireWriterLock(dir, { command: 'longhaul resume' });
    expect(await readLock(dir)).toMatchObject({
      pid: process.pid,
      host: hostname(),
      command: 'longhaul resume',
    });
    expect(await refusal(dir)).toContain(`${dir}: the run is being written by process ${process.pid}`);
    await lock.release();
    await expect(readFile(lockOf(dir))).rejects.toThrow(/ENOENT/);
    await (await acquireWriterLock(dir)).release();
  });

  it('refuses a live process on this host and takes the lock over once it is killed', async () => {
    const dir = await runDir();
    const child = sleeper();
    await writeLock(dir, { pid: child.pid!, processStart: await startOf(child.pid!) });
    const before = await readFile(lockOf(dir), 'utf8');
    const message = await refusal(dir);
    expect(message).toContain(`the run is being written by process ${child.pid} (\`longhaul run\``);
    expect(message).toContain(`kill ${child.pid}`);
    expect(await readFile(lockOf(dir), 'utf8')).toBe(before);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const lock = await acquireWriterLock(dir);
    expect((await readLock(dir)).pid).toBe(process.pid);
    await lock.release();
  });

  it('takes over a pid that now belongs to another process (a different start time)', async () => {
    const dir = await runDir();
    const child = sleeper();
    await writeLock(dir, { pid: child.pid!, processStart: '1' });
    const lock = await acquireWriterLock(dir);
    expect((await readLock(dir)).pid).toBe(process.pid);
    await lock.release();
  });

  it("respects another host's writer unless forced, and an unreadable lock too", async () => {
    const dir = await runDir();
    await writeLock(dir, { pid: 1, host: 'elsewhere' });
    expect(await refusal(dir)).toContain(
      'the run is being written by process 1 on host elsewhere (`longhaul run`, since 2026-01-01T00:00:00.000Z); wait for it to end, or if that process is gone, run this again with --force',
    );
    const forced = await acquireWriterLock(dir, { force: true });
    expect((await readLock(dir)).host).toBe(hostname());
    await forced.release();
    await writeFile(lockOf(dir), '{"pid": ');
    expect(await refusal(dir)).toContain('writer.lock is unreadable');
    await (await acquireWriterLock(dir, { force: true })).release();
  });

  it('release leaves a lock another process took over alone', async () => {
    const dir = await runDir();
    const lock = await acquireWriterLock(dir);
    await writeLock(dir, { pid: 1, host: 'elsewhere' });
    await lock.release();
    expect((await readLock(dir)).host).toBe('elsewhere');
  });
});
