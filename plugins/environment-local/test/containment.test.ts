import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Sandbox, SandboxSpec } from '@longhaul/core';
import { FakeSnapshotStore } from '@longhaul/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEnvironment, localOptions } from '../src/index.js';
import { killOpenMarkedSync } from '../src/process-marks.js';
import { passableTemp } from './passable-temp.js';
import { running } from './running.js';

type Sweepable = Sandbox & { sweep(): Promise<void> };

let base: string;

function spec(runId = 'run-a'): SandboxSpec {
  return { runId, trialId: 'task.h.s.m.r1', purpose: 'agent', task: { id: 'task', root: base }, needs: {} };
}

function environment(options: Record<string, unknown> = {}) {
  return new LocalEnvironment(
    localOptions.parse({ root: join(base, 'sandboxes'), ...options }),
    new FakeSnapshotStore(),
  );
}

async function pids(sandbox: Sandbox, names: string[]): Promise<number[]> {
  return Promise.all(
    names.map(async (name) =>
      Number(
        Buffer.from(await sandbox.readFile(name))
          .toString('utf8')
          .trim(),
      ),
    ),
  );
}

/** Waits (in the shell) until each pid file is written, so the command returns after they are. */
const waitFor = (files: string[]) =>
  files.map((file) => `while [ ! -s ${file} ]; do sleep 0.05; done`).join('; ');

/** Starts a server that detaches a child into a session of its own; the child's pid. */
async function startDetached(sandbox: Sandbox): Promise<number> {
  await sandbox.start(['sh', '-c', `setsid -f sh -c 'echo $$ > child.pid; exec sleep 901'; exec sleep 901`]);
  await sandbox.exec(['sh', '-c', waitFor(['child.pid'])]);
  const [child] = await pids(sandbox, ['child.pid']);
  return child!;
}

const doubleFork = `import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open("daemon.pid", "w") as f: f.write(str(os.getpid()))
        time.sleep(901)
    os._exit(0)
os.wait()`;

beforeAll(async () => {
  base = await passableTemp('longhaul-containment-test-');
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('local environment (isolation: none): process containment', () => {
  it('ends what a command left running, however it detached, when exec returns', async () => {
    const sandbox = await environment().open(spec());
    try {
      const files = ['setsid.pid', 'daemon.pid', 'nohup.pid', 'disown.pid'];
      const result = await sandbox.exec([
        'bash',
        '-c',
        [
          `setsid -f sh -c 'echo $$ > setsid.pid; exec sleep 901'`,
          `/usr/bin/python3 -c '${doubleFork}'`,
          `nohup sh -c 'echo $$ > nohup.pid; exec sleep 901' >/dev/null 2>&1 &`,
          `( setsid sh -c 'echo $$ > disown.pid; exec sleep 901' & disown )`,
          waitFor(files),
          'echo started',
        ].join('\n'),
      ]);
      expect(result).toMatchObject({ exitCode: 0, stdout: 'started\n' });
      for (const [index, pid] of (await pids(sandbox, files)).entries()) {
        expect(await running(pid), `${files[index]}: ${pid} outlived its exec`).toBe(false);
      }
    } finally {
      await sandbox.close();
    }
  });

  it('ends started processes and their detached children at sweep, sparing execs still running', async () => {
    const sandbox = (await environment().open(spec())) as Sweepable;
    try {
      const server = await sandbox.start([
        'sh',
        '-c',
        `echo $$ > server.pid; setsid -f sh -c 'echo $$ > child.pid; exec sleep 901'; exec sleep 901`,
      ]);
      const longExec = sandbox.exec(['sh', '-c', 'sleep 2; echo still here']);
      await sandbox.exec(['sh', '-c', waitFor(['server.pid', 'child.pid'])]);
      const started = await pids(sandbox, ['server.pid', 'child.pid']);
      for (const pid of started) expect(await running(pid)).toBe(true);
      await sandbox.sweep();
      for (const pid of started) expect(await running(pid), `${pid} outlived the sweep`).toBe(false);
      expect((await server.wait()).exitCode).not.toBe(0);
      expect(await longExec).toMatchObject({ exitCode: 0, stdout: 'still here\n' });
    } finally {
      await sandbox.close();
    }
  });

  it('ends detached processes of open sandboxes when the runner exits', async () => {
    const sandbox = await environment().open(spec());
    try {
      const child = await startDetached(sandbox);
      expect(await running(child)).toBe(true);
      killOpenMarkedSync(); // what the process's exit hook runs
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await running(child)).toBe(false);
    } finally {
      await sandbox.close();
    }
  });

  it('ends detached processes at close', async () => {
    const sandbox = await environment().open(spec());
    const child = await startDetached(sandbox);
    await sandbox.close();
    expect(await running(child)).toBe(false);
  });
});

describe('local environment: reclaim', () => {
  /** A sandbox folder left behind as a killed runner leaves it: its owner is dead. */
  async function orphan(runId: string): Promise<{ root: string; leftover: number }> {
    const sandbox = await environment({ keep: true }).open(spec(runId));
    const root = join(sandbox.workspace, '..');
    await sandbox.close();
    const dead = spawnSync('true').pid;
    const label = JSON.parse(await readFile(join(root, 'sandbox.json'), 'utf8'));
    await writeFile(join(root, 'sandbox.json'), JSON.stringify({ ...label, pid: dead }));
    // A process it started that survived the runner (plain mode marks its processes).
    const child = spawn('sleep', ['901'], {
      detached: true,
      stdio: 'ignore',
      env: { LONGHAUL_SANDBOX: `${sandbox.id}/1` },
    });
    child.unref();
    return { root, leftover: child.pid! };
  }

  it("removes the folders of dead runners (and what their commands left running), keeping a live one's", async () => {
    const env = environment();
    const live = await env.open(spec('run-a'));
    const first = await orphan('run-a');
    const second = await orphan('run-b');
    const other = await orphan('run-c');
    const unlabelled = join(base, 'sandboxes', 'longhaul-not-a-sandbox');
    await mkdir(unlabelled);
    try {
      expect(await env.reclaim({ runId: 'run-a' })).toEqual({ removed: [first.root] });
      expect(existsSync(second.root)).toBe(true);
      expect(await running(first.leftover)).toBe(false);
      expect(await running(second.leftover)).toBe(true);
      const { removed } = await env.reclaim();
      expect(removed.sort()).toEqual([second.root, other.root].sort());
      expect(await running(second.leftover)).toBe(false);
      expect(existsSync(live.workspace)).toBe(true);
      const left = await readdir(join(base, 'sandboxes'));
      expect(left.sort()).toEqual([basename(dirname(live.workspace)), 'longhaul-not-a-sandbox'].sort());
    } finally {
      await live.close();
    }
  });

  it('labels each sandbox folder with its run and owner process', async () => {
    const sandbox = await environment().open(spec('run-label'));
    try {
      const label = JSON.parse(await readFile(join(sandbox.workspace, '..', 'sandbox.json'), 'utf8'));
      expect(label).toMatchObject({ runId: 'run-label', trialId: 'task.h.s.m.r1', pid: process.pid });
    } finally {
      await sandbox.close();
    }
  });
});
