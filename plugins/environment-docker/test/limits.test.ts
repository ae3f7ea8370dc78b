import { existsSync } from 'node:fs';
import { runAgentTurn, type TrajectoryEvent } from '@longhaul/core';
import { SayParser } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { baseImageRef, type DockerSandbox } from '../src/index.js';
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

/** Runs `argv` as an agent turn that says `first` first, and returns the status the turn ends with. */
async function turnEnd(sandbox: DockerSandbox, argv: string[], first: string): Promise<string> {
  const events: TrajectoryEvent[] = [];
  for await (const event of runAgentTurn(sandbox, {
    agent: 'hog',
    argv,
    env: {},
    parser: new SayParser(),
    signal: new AbortController().signal,
    pollMs: 20,
  })) {
    events.push(event);
  }
  expect(events[0]).toMatchObject({ type: 'message', text: first });
  const end = events.at(-1) as { type: string; result: { status: string } };
  expect(end.type).toBe('turn.end');
  return end.result.status;
}

describe.skipIf(!dockerReady)('docker limits in an agent turn', () => {
  it('ends the turn with error:oom when the agent itself is killed for memory', async () => {
    await withSandbox(environment({ memory: '128m' }), spec('limit-turn-oom'), async (sandbox) => {
      const hog =
        'import sys; print("say allocating", flush=True); x = bytearray(512 * 1024 * 1024); print("say done")';
      expect(await turnEnd(sandbox, ['python3', '-c', hog], 'allocating')).toBe('error:oom');
    });
  });
});

describe.skipIf(!dockerReady)('docker disk limit', () => {
  const limit = 64 * 1024 * 1024;
  /** Writes 8 MiB files in `dir` until 1 GiB (16 times the limit) is written, then says so. */
  const filler = (dir: string) =>
    `mkdir -p ${dir} && i=0; while [ $i -lt 128 ]; do head -c 8388608 /dev/zero > ${dir}/fill-$i || exit 1; i=$((i + 1)); done; echo filled`;

  /** Bytes of the regular files under `dir` in the sandbox, as the agent sees them. */
  async function written(sandbox: DockerSandbox, dir: string): Promise<number> {
    const du = await sandbox.exec(['sh', '-c', `cat ${dir}/fill-* 2>/dev/null | wc -c`]);
    return Number(du.stdout.trim());
  }

  for (const [where, dir] of [
    ['the writable layer', '/tmp/hog'],
    ['the workspace', 'hog'],
  ] as const)
    it(`stops every process of a sandbox writing files past its disk limit in ${where}, and the host gets its space back at close`, async () => {
      const sandbox = await environment({ disk: '64m' }).open(spec(`limit-disk-${dir.length}`));
      const info = await new Docker().getContainer(sandbox.id).inspect();
      const upper = (info.GraphDriver.Data as Record<string, string>).UpperDir as string;
      const volume = info.Mounts.find((mount) => mount.Type === 'volume')?.Source as string;
      try {
        const bystander = await sandbox.start(['sleep', '600']);
        const started = Date.now();
        const fill = await sandbox.exec(['sh', '-c', filler(dir)], { timeoutMs: 120_000 });
        const tookMs = Date.now() - started;
        expect(fill.stdout, 'the writer wrote 1 GiB past a 64 MiB limit').not.toContain('filled');
        expect(fill.timedOut).toBe(false);
        expect(fill.exitCode).not.toBe(0);
        expect(fill.diskLimitHit, fill.stderr).toBe(true);
        expect(fill.stderr).toContain(`went past its disk limit of ${limit} bytes`);
        // A process started beside the writer is stopped too, and says why.
        expect((await bystander.wait()).diskLimitHit).toBe(true);
        const bytes = await written(sandbox, dir);
        console.log(
          `disk limit ${limit} bytes in ${where}: stopped after ${bytes} bytes (${(bytes / limit).toFixed(2)}x) in ${tookMs} ms`,
        );
        // The watch counts everything the sandbox wrote, so the writer's files alone may stop just
        // short of the limit; never a whole file short of it.
        expect(bytes).toBeGreaterThan(limit - 8 * 1024 * 1024);
        expect(bytes, 'the writer went on long past the limit').toBeLessThan(1024 * 1024 * 1024);
        // Past the limit without growing, the sandbox runs commands: removing files brings it back.
        const cleaned = await sandbox.exec(['sh', '-c', `rm -rf ${dir} && echo cleaned`]);
        expect(cleaned).toMatchObject({ exitCode: 0, stdout: 'cleaned\n' });
        expect(cleaned.diskLimitHit).toBeUndefined();
        const again = await sandbox.exec(['sh', '-c', `${filler(dir).replace('-lt 128', '-lt 2')}`]);
        expect(again).toMatchObject({ exitCode: 0, stdout: 'filled\n' });
        expect(again.diskLimitHit).toBeUndefined();
        await sandbox.exec(['sh', '-c', filler(dir)], { timeoutMs: 120_000 });
      } finally {
        await sandbox.close();
      }
      // What the agent wrote is gone from the host with the container and its volume.
      expect(existsSync(upper), `${upper} is left on the host`).toBe(false);
      expect(existsSync(volume), `${volume} is left on the host`).toBe(false);
    });

  it('stops a single file at the disk limit (RLIMIT_FSIZE) and reports it', async () => {
    await withSandbox(environment({ disk: '64m' }), spec('limit-disk-file'), async (sandbox) => {
      const big = await sandbox.exec(['sh', '-c', `head -c ${2 * limit} /dev/zero > /tmp/big.bin`]);
      expect(big.exitCode).toBe(153);
      expect(big.diskLimitHit).toBe(true);
      expect(big.stderr).toContain(`a file reached the sandbox's disk limit of ${limit} bytes`);
      const size = await sandbox.exec(['stat', '-c', '%s', '/tmp/big.bin']);
      expect(Number(size.stdout.trim())).toBe(limit);
    });
  });

  it('ends an agent turn with error:disk when the agent fills the disk', async () => {
    await withSandbox(environment({ disk: '64m' }), spec('limit-turn-disk'), async (sandbox) => {
      const argv = ['sh', '-c', `echo "say filling"; ${filler('/tmp/hog')}; echo "say done"`];
      expect(await turnEnd(sandbox, argv, 'filling')).toBe('error:disk');
    });
  });

  it('limits disk by default, with a limit the guarantee line names', async () => {
    await withSandbox(environment(), spec('limit-disk-default'), async (sandbox) => {
      const fsize = await sandbox.exec(['sh', '-c', 'ulimit -f']);
      // dash counts in blocks of 512 bytes.
      expect(Number(fsize.stdout.trim()) * 512).toBe(10 * 1024 ** 3);
    });
  });
});
