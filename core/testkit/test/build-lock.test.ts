import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withLockDir, workspaceRoot } from '../src/build.js';
import { deadPid } from './support/dead-pid.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function lockPath(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'longhaul-lock-'));
  dirs.push(dir);
  return join(dir, 'build.lock');
}

describe('the build lock of tests that run the CLI', () => {
  it('lets one holder in at a time', async () => {
    const lock = await lockPath();
    const order: string[] = [];
    const hold = (name: string) =>
      withLockDir(lock, async () => {
        order.push(`${name} in`);
        await new Promise((wake) => setTimeout(wake, 300));
        order.push(`${name} out`);
      });
    await Promise.all([hold('a'), hold('b')]);
    expect(order).toHaveLength(4);
    expect(order[1]).toBe(order[0]!.replace('in', 'out'));
    expect(order[3]).toBe(order[2]!.replace('in', 'out'));
  });

  it('takes over a lock left by a process that died holding it', async () => {
    const lock = await lockPath();
    await mkdir(lock);
    await writeFile(join(lock, 'owner.json'), JSON.stringify({ pid: deadPid(), host: hostname() }));
    await expect(withLockDir(lock, async () => 'built', 20_000)).resolves.toBe('built');
  });

  it('takes over an old lock whose holder died before naming itself', async () => {
    const lock = await lockPath();
    await mkdir(lock);
    const old = new Date(Date.now() - 120_000);
    await utimes(lock, old, old);
    await expect(withLockDir(lock, async () => 'built', 20_000)).resolves.toBe('built');
  });

  it('waits while the owner file is half written, as for a lock being taken', async () => {
    const lock = await lockPath();
    await mkdir(lock);
    await writeFile(join(lock, 'owner.json'), '{"pid": 12');
    await expect(withLockDir(lock, async () => 'built', 600)).rejects.toThrow('held by pid unknown');
  });

  it('waits for a live holder and says who holds it when it gives up', async () => {
    const lock = await lockPath();
    await mkdir(lock);
    await writeFile(join(lock, 'owner.json'), JSON.stringify({ pid: process.pid, host: hostname() }));
    await expect(withLockDir(lock, async () => 'built', 600)).rejects.toThrow(`held by pid ${process.pid}`);
  });

  it('finds the workspace root from inside a package', () => {
    expect(workspaceRoot(import.meta.dirname)).toBe(resolve(import.meta.dirname, '../../..'));
  });
});
