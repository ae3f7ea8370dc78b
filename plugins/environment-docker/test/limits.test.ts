import { runAgentTurn, type TrajectoryEvent } from '@longhaul/core';
import { hasErrorClass, SayParser } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { baseImageRef } from '../src/index.js';
import { environment, spec, withSandbox } from './helpers.js';

const dockerReady = prerequisites.docker([baseImageRef()]);

/** Processes in the container besides its init and `sleep infinity`, counted from /proc. */
const countProcesses = ['sh', '-c', 'ls -d /proc/[0-9]* | wc -l'];

describe.skipIf(!dockerReady)('docker sandbox limits', () => {
  it('contains a fork bomb with the pids limit, reports it, and leaves the sandbox usable', async () => {
    await withSandbox(environment({ pids: 64 }), spec('limit-pids'), async (sandbox) => {
      const idle = Number((await sandbox.exec(countProcesses)).stdout.trim());
      // A foreground pipeline: every level waits for the two below it, so the command cannot
      // return (and have its tree ended) before the forks reach the limit.
      const bomb = await sandbox.exec(['bash', '-c', 'bomb() { bomb | bomb; }; bomb'], {
        timeoutMs: 5_000,
      });
      expect(bomb.pidsLimitHit).toBe(true);
      expect((await sandbox.exec(['echo', 'alive'])).stdout).toBe('alive\n');
      // Killed processes may take a moment to be reaped by the container's init.
      let left = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 600 && left > idle; i++) {
        left = Number((await sandbox.exec(countProcesses)).stdout.trim());
        if (left > idle) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(left, 'processes of the fork bomb survived it').toBeLessThanOrEqual(idle);
    });
  });

  it('OOM-kills a memory hog at the memory limit and reports it, and the sandbox goes on', async () => {
    await withSandbox(environment({ memory: '128m' }), spec('limit-memory'), async (sandbox) => {
      const hog = await sandbox.exec(
        ['python3', '-c', 'x = bytearray(512 * 1024 * 1024); print("survived")'],
        {
          timeoutMs: 60_000,
        },
      );
      expect(hog.stdout).not.toContain('survived');
      expect(hog.exitCode).toBe(137);
      expect(hog.oomKilled).toBe(true);
      expect(hog.timedOut).toBe(false);
      const small = await sandbox.exec(['python3', '-c', 'x = bytearray(16 * 1024 * 1024); print("fine")']);
      expect(small).toMatchObject({ exitCode: 0, stdout: 'fine\n' });
      expect(small.oomKilled).toBeUndefined();
    });
  });

  it('reports a timeout as timedOut, not as OOM', async () => {
    await withSandbox(environment(), spec('limit-timeout'), async (sandbox) => {
      const result = await sandbox.exec(['sleep', '30'], { timeoutMs: 500 });
      expect(result).toMatchObject({ timedOut: true, exitCode: 137 });
      expect(result.oomKilled).toBeUndefined();
    });
  });

  it('applies the cpu and memory limits to the container', async () => {
    await withSandbox(
      environment({ cpus: 1.5, memory: '256m', pids: 100 }),
      spec('limit-config'),
      async (sandbox) => {
        const limits = await sandbox.exec([
          'sh',
          '-c',
          'cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/pids.max 2>/dev/null',
        ]);
        expect(limits.stdout.split('\n')).toEqual(expect.arrayContaining([String(256 * 1024 * 1024), '100']));
      },
    );
  });
});

describe.skipIf(!dockerReady)('docker sandbox close', () => {
  it('ends running commands when the sandbox closes; their results come back without a fault', async () => {
    const sandbox = await environment().open(spec('close-running'));
    const server = await sandbox.start(['sh', '-c', 'echo up; exec sleep 600']);
    const exec = sandbox.exec(['sleep', '600']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await sandbox.close();
    const [started, ran] = await Promise.all([server.wait(), exec]);
    expect(started.exitCode).not.toBe(0);
    expect(ran.exitCode).not.toBe(0);
  });

  it('gives a result, not a fault, for a command that was still starting when it closed', async () => {
    const sandbox = await environment().open(spec('close-starting'));
    const starting = Array.from({ length: 4 }, () => sandbox.exec(['sleep', '600']));
    await sandbox.close();
    for (const result of await Promise.all(starting)) expect(result.exitCode).not.toBe(0);
  });
});

describe.skipIf(!dockerReady)('docker limits in an agent turn', () => {
  it('ends the turn with error:oom when the agent itself is killed for memory', async () => {
    await withSandbox(environment({ memory: '128m' }), spec('limit-turn-oom'), async (sandbox) => {
      const hog =
        'import sys; print("say allocating", flush=True); x = bytearray(512 * 1024 * 1024); print("say done")';
      const events: TrajectoryEvent[] = [];
      for await (const event of runAgentTurn(sandbox, {
        agent: 'hog',
        argv: ['python3', '-c', hog],
        env: {},
        parser: new SayParser(),
        signal: new AbortController().signal,
        pollMs: 20,
      })) {
        events.push(event);
      }
      expect(events[0]).toMatchObject({ type: 'message', text: 'allocating' });
      const end = events.at(-1) as { type: string; result: { status: string } };
      expect(end.type).toBe('turn.end');
      expect(end.result.status).toBe('error:oom');
    });
  });
});

describe.skipIf(!dockerReady)('docker disk quota', () => {
  it('applies disk where the storage driver allows it, and otherwise says why opening failed', async () => {
    const info = await new Docker().info();
    const backing = (info.DriverStatus as [string, string][]).find(
      ([key]) => key === 'Backing Filesystem',
    )?.[1];
    const env = environment({ disk: '1g' });
    if (info.Driver === 'overlay2' && backing !== 'xfs') {
      const error = await env.open(spec('limit-disk')).catch((e: unknown) => e);
      expect(hasErrorClass(error, 'sandbox')).toBe(true);
      expect(String(error)).toContain('the docker option disk: 1g needs a storage driver with size quotas');
      return;
    }
    await withSandbox(env, spec('limit-disk'), async (sandbox) => {
      const fill = await sandbox.exec(['sh', '-c', 'head -c 1200M /dev/zero > /tmp/fill'], {
        timeoutMs: 120_000,
      });
      expect(fill.exitCode).not.toBe(0);
    });
  });
});
