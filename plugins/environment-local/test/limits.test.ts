import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runAgentTurn, type Sandbox } from '@longhaul/core';
import {
  describeChecks,
  type EnvironmentContext,
  environmentContext,
  FakeSnapshotStore,
  limitChecks,
  SayParser,
} from '@longhaul/testkit';
import { prerequisite, prerequisites } from '@longhaul/testkit/prerequisites';
import { describe, expect, it } from 'vitest';
import { LocalEnvironment, localOptions } from '../src/index.js';
import { cgroupHierarchy } from '../src/sandbox-cgroup.js';
import { limitProblem } from '../src/sandbox-limits.js';

// The limits of local sandboxes, in both modes, through cgroups (root; on a hybrid host such as
// CI's, the v1 memory and pids hierarchies). The disk limit needs no cgroup: the conformance
// tests try it everywhere.

const limited = prerequisite({
  name: 'cgroups with the memory and pids controllers',
  install:
    'run as root where the memory and pids controllers are mounted read-write (cgroup v2, or their v1 hierarchies on a hybrid host)',
  probe: () => limitProblem('memory') ?? limitProblem('pids'),
});

const limits = { pids: 64, memoryBytes: 128 * 1024 * 1024, diskBytes: 32 * 1024 * 1024 };
const options = { pids: limits.pids, memory: '128m', disk: '32m' };

function environment(isolation: 'none' | 'bubblewrap') {
  return new LocalEnvironment(localOptions.parse({ isolation, ...options }), new FakeSnapshotStore());
}

async function withSandbox(isolation: 'none' | 'bubblewrap', use: (sandbox: Sandbox) => Promise<void>) {
  const context = await environmentContext(environment(isolation));
  const sandbox = await context.environment.open(context.spec);
  try {
    await use(sandbox);
  } finally {
    await sandbox.close();
    await context.dispose();
  }
}

async function turnStatus(sandbox: Sandbox, script: string): Promise<string> {
  let status = '';
  for await (const event of runAgentTurn(sandbox, {
    agent: 'hog',
    argv: ['sh', '-c', script],
    env: {},
    parser: new SayParser(),
    signal: new AbortController().signal,
    timeoutMs: 120_000,
    pollMs: 20,
  })) {
    if (event.type === 'turn.end') status = event.result.status;
  }
  return status;
}

for (const isolation of ['none', 'bubblewrap'] as const) {
  const ready = () => limited && (isolation === 'none' || prerequisites.bubblewrap());
  describe.skipIf(!ready())(`local environment (isolation: ${isolation}) limits`, () => {
    describeChecks<EnvironmentContext & { dispose(): Promise<void> }>(
      'the limit checks of the environment conformance suite',
      limitChecks(limits),
      () => environmentContext(environment(isolation)),
      (context) => context.dispose(),
    );

    it('says a burst of processes hit the pids limit', async () => {
      await withSandbox(isolation, async (sandbox) => {
        const burst = await sandbox.exec(
          [
            'python3',
            '-c',
            'import os\nfor _ in range(500):\n    if os.fork() == 0:\n        import time; time.sleep(30); os._exit(0)',
          ],
          { timeoutMs: 120_000 },
        );
        expect(burst.stderr).toMatch(/BlockingIOError|Resource temporarily unavailable/);
        expect(burst.pidsLimitHit).toBe(true);
        const calm = await sandbox.exec(['true']);
        expect(calm.pidsLimitHit).toBeUndefined();
      });
    });

    it('ends an agent turn killed for memory with error:oom, and one stopped at the disk limit with error:disk', async () => {
      await withSandbox(isolation, async (sandbox) => {
        const hog = `echo say allocating; exec python3 -c 'x = b"\\x01" * ${2 * limits.memoryBytes}; print("say done")'`;
        expect(await turnStatus(sandbox, hog)).toBe('error:oom');
        const filler =
          'echo say filling; i=0; while :; do head -c 4194304 /dev/zero > f$i || exit 1; i=$((i + 1)); done';
        expect(await turnStatus(sandbox, filler)).toBe('error:disk');
        await sandbox.exec(['sh', '-c', 'rm -f f*']);
        expect((await sandbox.exec(['echo', 'fine'])).stdout).toBe('fine\n');
      });
    });

    it('stops a fast writer of many files soon after the disk limit, and says how far past it', async () => {
      await withSandbox(isolation, async (sandbox) => {
        // 4 MiB files up to 512 MiB, 16 times the limit: it must not get there.
        const filler =
          'i=0; while [ $i -lt 128 ]; do head -c 4194304 /dev/zero > fill-$i || exit 1; i=$((i + 1)); done; echo filled';
        const started = Date.now();
        const fill = await sandbox.exec(['sh', '-c', filler], { timeoutMs: 120_000 });
        const tookMs = Date.now() - started;
        expect(fill.stdout, 'the writer wrote 16 times the limit').not.toContain('filled');
        expect(fill.diskLimitHit, fill.stderr).toBe(true);
        const bytes = (await sandbox.list('.'))
          .filter((entry) => entry.path.startsWith('fill-'))
          .reduce((sum, entry) => sum + (entry.size ?? 0), 0);
        console.log(
          `isolation ${isolation}: disk limit ${limits.diskBytes} bytes, stopped after ${bytes} bytes (${(bytes / limits.diskBytes).toFixed(2)}x) in ${tookMs} ms`,
        );
        expect(bytes).toBeGreaterThan(limits.diskBytes);
        expect(bytes).toBeLessThan(512 * 1024 * 1024);
      });
    });

    it('leaves none of its cgroups behind when it closes', async () => {
      let dirs: string[] = [];
      await withSandbox(isolation, async (sandbox) => {
        await sandbox.exec(['true']);
        const label = JSON.parse(await readFile(join(sandbox.workspace, '..', 'sandbox.json'), 'utf8'));
        // Its v1 cgroups (a hybrid host's), named in its label, and its v2 one.
        const hierarchy = cgroupHierarchy();
        dirs = [...(label.cgroups ?? []), ...(hierarchy ? [join(hierarchy.parent, sandbox.id)] : [])];
        expect(dirs.length).toBeGreaterThan(0);
        for (const dir of dirs) expect(existsSync(dir), `${dir} is not there`).toBe(true);
      });
      for (const dir of dirs) expect(existsSync(dir), `${dir} is left`).toBe(false);
    });
  });
}
