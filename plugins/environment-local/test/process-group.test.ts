import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { killLiveGroups, ProcessGroup } from '../src/process-group.js';

const cwd = mkdtempSync(join(tmpdir(), 'longhaul-pg-'));
const options = {
  cwd,
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  maxOutputBytes: 100,
  killGraceMs: 300,
};

afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('ProcessGroup', () => {
  it('reports a program that cannot start', async () => {
    const group = await ProcessGroup.start(['no-such-program-here'], options);
    const exit = await group.done;
    expect(exit.exitCode).toBeNull();
    expect(exit.spawnError).toMatch(/no-such-program-here/);
  });

  it('captures output and the exit code', async () => {
    const group = await ProcessGroup.start(['sh', '-c', 'echo out; echo err >&2; exit 3'], options);
    expect(await group.done).toEqual({ exitCode: 3 });
    expect(group.stdout.text()).toBe('out\n');
    expect(group.stderr.text()).toBe('err\n');
  });

  it('does not wait for children the command left running, and kills them', async () => {
    // The child never ends by itself: `done` resolving at all shows it was not waited for.
    const beat = 'while :; do echo x >> beat; sleep 0.1; done';
    const group = await ProcessGroup.start(
      ['sh', '-c', `(${beat}) & until [ -s beat ]; do sleep 0.1; done`],
      options,
    );
    expect(await group.done).toEqual({ exitCode: 0 });
    const before = statSync(join(cwd, 'beat')).size;
    await delay(1_000);
    expect(statSync(join(cwd, 'beat')).size, 'the child still writes').toBe(before);
  });

  it('stops a group that ignores SIGTERM', async () => {
    const group = await ProcessGroup.start(['sh', '-c', 'trap "" TERM; sleep 600'], options);
    const started = Date.now();
    await delay(100);
    await group.stop();
    expect((await group.done).exitCode).toBeNull();
    // Far less than its 10 min sleep: the group was killed.
    expect(Date.now() - started).toBeLessThan(120_000);
  });

  it('keeps output up to the cap and marks the rest dropped', async () => {
    const group = await ProcessGroup.start(['sh', '-c', 'head -c 1000 /dev/zero | tr "\\0" a'], options);
    expect(await group.done).toEqual({ exitCode: 0 });
    expect(group.stdout.text()).toBe('a'.repeat(100));
    expect(group.stdout.truncated).toBe(true);
  });

  it('feeds stdin', async () => {
    const group = await ProcessGroup.start(['cat'], { ...options, stdin: 'in put' });
    await group.done;
    expect(group.stdout.text()).toBe('in put');
  });

  it('kills every group still running when asked at exit', async () => {
    const groups = await Promise.all(
      ['a', 'b'].map((name) =>
        ProcessGroup.start(['sh', '-c', `(sleep 1; touch late-${name}) & sleep 30`], options),
      ),
    );
    await delay(100);
    killLiveGroups();
    for (const group of groups) expect((await group.done).exitCode).toBeNull();
    await delay(1_300);
    expect(existsSync(join(cwd, 'late-a')) || existsSync(join(cwd, 'late-b'))).toBe(false);
  });
});
