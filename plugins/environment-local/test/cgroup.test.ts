import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Sandbox, SandboxSpec } from '@longhaul/core';
import { FakeSnapshotStore } from '@longhaul/testkit';
import { prerequisite } from '@longhaul/testkit/prerequisites';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEnvironment, localOptions } from '../src/index.js';
import { cgroup2Mount, cgroupHierarchy, cgroupProblem, killOpenCgroupsSync } from '../src/sandbox-cgroup.js';
import { passableTemp } from './passable-temp.js';
import { running } from './running.js';

// Plain mode where the host gives sandboxes cgroups (root, a writable cgroup v2 hierarchy): a
// process started with a cleared environment in a session of its own, which the environment
// marks cannot find, ends with its call, its step's sweep, the sandbox, or the runner. CI runs as
// root with cgroup v2 mounted: there a host without cgroups fails these tests instead of skipping.

type Sweepable = Sandbox & { sweep(): Promise<void> };

const inCgroups = prerequisite({
  name: 'a writable cgroup v2 hierarchy',
  install: 'run as root where cgroup2 is mounted read-write: `mount -t cgroup2 none DIR`',
  probe: cgroupProblem,
});

let base: string;

function spec(runId = 'run-cg'): SandboxSpec {
  return { runId, trialId: 'task.h.s.m.r1', purpose: 'agent', task: { id: 'task', root: base }, needs: {} };
}

function environment() {
  return new LocalEnvironment(localOptions.parse({ root: join(base, 'sandboxes') }), new FakeSnapshotStore());
}

/** A writer that escapes group, session and environment: appends a line every 100 ms. */
const escapee = (file: string) =>
  `env -i /bin/sh -c 'setsid -f /bin/sh -c "echo \\$\\$ > ${file}.pid; while :; do echo x >> ${file}; sleep 0.1; done" &'; while [ ! -s ${file}.pid ]; do sleep 0.05; done`;

/** Whether `file` still grows: its size after 600 ms (six of the writer's periods) against now. */
async function stillWritten(file: string): Promise<boolean> {
  const before = statSync(file).size;
  await delay(600);
  return statSync(file).size > before;
}

async function pidIn(sandbox: Sandbox, name: string): Promise<number> {
  return Number(
    Buffer.from(await sandbox.readFile(name))
      .toString('utf8')
      .trim(),
  );
}

beforeAll(async () => {
  base = await passableTemp('longhaul-cgroup-test-');
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('cgroup2Mount', () => {
  it('finds the cgroup v2 mount of a hybrid host, not the v1 controllers', () => {
    const table = [
      '31 25 0:26 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755',
      '32 31 0:27 / /sys/fs/cgroup/memory rw,nosuid shared:10 - cgroup cgroup rw,memory',
      '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime shared:11 - cgroup2 cgroup2 rw',
    ].join('\n');
    expect(cgroup2Mount(table)).toBe('/sys/fs/cgroup/unified');
    expect(cgroup2Mount('29 23 0:25 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate')).toBe(
      '/sys/fs/cgroup',
    );
    expect(cgroup2Mount('29 23 0:25 / /sys/fs/my\\040cgroups rw - cgroup2 none rw')).toBe(
      '/sys/fs/my cgroups',
    );
    expect(cgroup2Mount('29 23 0:25 / /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw')).toBeUndefined();
    expect(cgroup2Mount('32 31 0:27 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory')).toBeUndefined();
  });
});

describe.skipIf(!inCgroups)('local environment (isolation: none) in cgroups', () => {
  it('ends a writer started with env -i and setsid -f when its exec returns', async () => {
    const sandbox = await environment().open(spec());
    try {
      const result = await sandbox.exec(['sh', '-c', `${escapee('exec.log')}; echo started`]);
      expect(result).toMatchObject({ exitCode: 0, stdout: 'started\n' });
      const pid = await pidIn(sandbox, 'exec.log.pid');
      expect(await running(pid), `the writer ${pid} outlived its exec`).toBe(false);
      expect(await stillWritten(join(sandbox.workspace, 'exec.log'))).toBe(false);
    } finally {
      await sandbox.close();
    }
  });

  it("ends a started process's escaped writer at the step's sweep, sparing an exec still running", async () => {
    const sandbox = (await environment().open(spec())) as Sweepable;
    try {
      await sandbox.start(['sh', '-c', `${escapee('step.log')}; exec sleep 901`]);
      const longExec = sandbox.exec(['sh', '-c', 'sleep 2; echo still here']);
      while (!existsSync(join(sandbox.workspace, 'step.log'))) await delay(20);
      expect(await stillWritten(join(sandbox.workspace, 'step.log'))).toBe(true);
      await sandbox.sweep();
      expect(await running(await pidIn(sandbox, 'step.log.pid'))).toBe(false);
      expect(await stillWritten(join(sandbox.workspace, 'step.log'))).toBe(false);
      expect(await longExec).toMatchObject({ exitCode: 0, stdout: 'still here\n' });
    } finally {
      await sandbox.close();
    }
  });

  it('ends the escaped writer at close, and when the runner exits with the sandbox open', async () => {
    const sandbox = await environment().open(spec());
    await sandbox.start(['sh', '-c', `${escapee('close.log')}; exec sleep 901`]);
    while (!existsSync(join(sandbox.workspace, 'close.log.pid'))) await delay(20);
    const pid = await pidIn(sandbox, 'close.log.pid');
    await sandbox.close();
    expect(await running(pid)).toBe(false);

    const open = await environment().open(spec());
    try {
      await open.start(['sh', '-c', `${escapee('exit.log')}; exec sleep 901`]);
      while (!existsSync(join(open.workspace, 'exit.log.pid'))) await delay(20);
      const other = await pidIn(open, 'exit.log.pid');
      killOpenCgroupsSync(); // what the process's exit hook runs
      await delay(300);
      expect(await running(other)).toBe(false);
    } finally {
      await open.close();
    }
  });

  it("ends a dead runner's escaped writer when its sandbox is reclaimed", async () => {
    const env = new LocalEnvironment(
      localOptions.parse({ root: join(base, 'sandboxes'), keep: true }),
      new FakeSnapshotStore(),
    );
    const sandbox = await env.open(spec('run-dead'));
    await sandbox.start(['sh', '-c', `${escapee('dead.log')}; exec sleep 901`]);
    while (!existsSync(join(sandbox.workspace, 'dead.log.pid'))) await delay(20);
    const pid = await pidIn(sandbox, 'dead.log.pid');
    const root = join(sandbox.workspace, '..');
    // The runner "dies": its label names a pid that has exited, and its sandbox stays open.
    const label = JSON.parse(await readFile(join(root, 'sandbox.json'), 'utf8'));
    await writeFile(join(root, 'sandbox.json'), JSON.stringify({ ...label, pid: spawnSync('true').pid }));
    expect(await running(pid)).toBe(true);
    expect(await env.reclaim({ runId: 'run-dead' })).toEqual({ removed: [root] });
    expect(await running(pid)).toBe(false);
    expect(existsSync(join(cgroupHierarchy()!.parent, sandbox.id))).toBe(false);
    await sandbox.close().catch(() => undefined);
  });

  it("keeps containing a live sandbox whose idle cgroup another run's reclaim removed", async () => {
    const env = environment();
    const sandbox = await env.open(spec('run-live'));
    try {
      const dir = join(cgroupHierarchy()!.parent, sandbox.id);
      await sandbox.exec(['true']);
      await env.reclaim({ runId: 'run-other' });
      expect(existsSync(dir)).toBe(false);
      await sandbox.exec(['sh', '-c', escapee('again.log')]);
      expect(await running(await pidIn(sandbox, 'again.log.pid'))).toBe(false);
    } finally {
      await sandbox.close();
    }
  });

  it('leaves no cgroup behind once its sandboxes are closed', async () => {
    const sandbox = await environment().open(spec());
    const dir = join(cgroupHierarchy()!.parent, sandbox.id);
    expect(existsSync(dir)).toBe(true);
    await sandbox.exec(['true']);
    await sandbox.close();
    expect(existsSync(dir)).toBe(false);
  });
});
