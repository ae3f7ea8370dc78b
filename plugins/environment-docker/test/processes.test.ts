import { setTimeout as delay } from 'node:timers/promises';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { describe, expect, it } from 'vitest';
import type { DockerSandbox } from '../src/index.js';
import { baseImageRef } from '../src/index.js';
import { environment, spec, withSandbox } from './helpers.js';

const dockerReady = prerequisites.docker([baseImageRef()]);

/** A shell loop that appends a line to `file` in the workspace ten times a second. */
const writer = (file: string) => `while :; do echo x >> ${file}; sleep 0.1; done`;

/** Sizes of the workspace's files, read without running anything in the container. */
async function sizes(sandbox: DockerSandbox): Promise<Record<string, number>> {
  const entries = await sandbox.list('', { recursive: true });
  return Object.fromEntries(entries.filter((e) => e.type === 'file').map((e) => [e.path, e.size]));
}

/** Command lines of the container's processes that mention `needle` (the lister excepted). */
async function running(sandbox: DockerSandbox, needle: string): Promise<string[]> {
  const script = `import os, sys
me = os.getpid()
for pid in filter(str.isdigit, os.listdir('/proc')):
    try:
        line = open(f'/proc/{pid}/cmdline', 'rb').read().replace(b'\\0', b' ').decode().strip()
    except OSError:
        continue
    if int(pid) != me and sys.argv[1] in line:
        print(pid, line)`;
  const result = await sandbox.exec(['python3', '-c', script, needle], { user: 'root' });
  expect(result.exitCode, result.stderr).toBe(0);
  return result.stdout.split('\n').filter(Boolean);
}

/** Waits (generously) while nothing may write, and returns how much the files grew meanwhile. */
async function growthOver(sandbox: DockerSandbox, ms: number): Promise<Record<string, number>> {
  const before = await sizes(sandbox);
  await delay(ms);
  const after = await sizes(sandbox);
  return Object.fromEntries(Object.entries(after).map(([path, size]) => [path, size - (before[path] ?? 0)]));
}

/** Waits until `file` exists and grows, so a check that it stopped means something. */
async function untilGrowing(sandbox: DockerSandbox, file: string): Promise<void> {
  // A hang guard only: a loaded machine may take this long to start a shell in the container.
  const deadline = Date.now() + 120_000;
  let last = -1;
  while (Date.now() < deadline) {
    const size = (await sizes(sandbox))[file] ?? -1;
    if (last >= 0 && size > last) return;
    last = size;
    await delay(300);
  }
  throw new Error(`${file} did not grow within 120 s`);
}

/** Shell that marks `NAME.started` and waits until the test writes `NAME.release`. */
const held = (name: string) => `touch ${name}.started; until [ -e ${name}.release ]; do sleep 0.1; done`;

async function untilExists(sandbox: DockerSandbox, file: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await sizes(sandbox))[file] === undefined) {
    if (Date.now() > deadline) throw new Error(`${file} did not appear within 120 s`);
    await delay(100);
  }
}

const doubleFork = `import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in (0, 1, 2):
            os.close(fd)
        while True:
            with open('python.log', 'a') as f:
                f.write('x\\n')
            time.sleep(0.1)
    os._exit(0)
os.wait()`;

describe.skipIf(!dockerReady)('processes in a docker sandbox', () => {
  const env = environment();

  it('ends what a command detached (setsid, double fork, nohup, disown) when the command returns', async () => {
    await withSandbox(env, spec('procs-detach'), async (sandbox) => {
      const script = [
        `setsid -f sh -c '${writer('setsid.log')}' > /dev/null 2>&1`,
        `nohup sh -c '${writer('nohup.log')}' > /dev/null 2>&1 &`,
        `( sh -c '${writer('disown.log')}' > /dev/null 2>&1 & disown )`,
        `python3 -c "$DOUBLE_FORK"`,
        // Every writer has written before the command returns.
        'until [ -s setsid.log ] && [ -s nohup.log ] && [ -s disown.log ] && [ -s python.log ]; do sleep 0.1; done',
      ].join('\n');
      const result = await sandbox.exec(['bash', '-c', script], { env: { DOUBLE_FORK: doubleFork } });
      expect(result.exitCode, result.stderr).toBe(0);
      const written = await sizes(sandbox);
      for (const file of ['setsid.log', 'nohup.log', 'disown.log', 'python.log'])
        expect(written[file], `${file} was never written`).toBeGreaterThan(0);

      expect(await growthOver(sandbox, 3_000)).toEqual({
        'setsid.log': 0,
        'nohup.log': 0,
        'disown.log': 0,
        'python.log': 0,
      });
      expect(await running(sandbox, '.log')).toEqual([]);
    });
  }, 300_000);

  it('returns when its process exits, even when a detached child holds its output open', async () => {
    await withSandbox(env, spec('procs-output'), async (sandbox) => {
      const result = await sandbox.exec(
        ['sh', '-c', `setsid -f sh -c '${writer('held.log')}'; echo started`],
        {
          timeoutMs: 60_000,
        },
      );
      expect(result).toMatchObject({ exitCode: 0, stdout: 'started\n', timedOut: false });
      // The writer may be ended before its first line (no file at all): either way it never grows.
      expect((await growthOver(sandbox, 2_000))['held.log'] ?? 0).toBe(0);
    });
  }, 300_000);

  it('ends root commands the same way', async () => {
    await withSandbox(env, spec('procs-root'), async (sandbox) => {
      const result = await sandbox.exec(
        [
          'sh',
          '-c',
          `setsid -f sh -c '${writer('root.log')}' > /dev/null 2>&1; until [ -s root.log ]; do sleep 0.1; done`,
        ],
        {
          user: 'root',
        },
      );
      expect(result.exitCode).toBe(0);
      expect(await growthOver(sandbox, 2_000)).toEqual({ 'root.log': 0 });
    });
  }, 300_000);

  it('keeps a started process running across other commands, and ends it at sweep()', async () => {
    await withSandbox(env, spec('procs-sweep'), async (sandbox) => {
      const server = await sandbox.start(['sh', '-c', writer('background.log')]);
      await untilGrowing(sandbox, 'background.log');
      expect((await sandbox.exec(['true'])).exitCode).toBe(0);
      await untilGrowing(sandbox, 'background.log');

      // A command that is running during the sweep is not part of what it ends: it runs until the
      // test releases it, after the sweep.
      const during = sandbox.exec(['sh', '-c', `${held('during')}; echo survived`]);
      await untilExists(sandbox, 'during.started');
      await sandbox.sweep();
      await sandbox.writeFile('during.release', '');
      expect(await during).toMatchObject({ exitCode: 0, stdout: 'survived\n' });
      const ended = await Promise.race([server.wait(), delay(120_000).then(() => 'still waiting')]);
      expect(ended).not.toBe('still waiting');
      expect((await growthOver(sandbox, 2_000))['background.log']).toBe(0);
      expect(await running(sandbox, 'background.log')).toEqual([]);
      // The sandbox goes on working after the sweep.
      expect((await sandbox.exec(['echo', 'ok'])).stdout).toBe('ok\n');
    });
  }, 300_000);

  it('keeps the tree of a command that is still running while another command ends', async () => {
    await withSandbox(env, spec('procs-concurrent'), async (sandbox) => {
      const long = sandbox.exec([
        'sh',
        '-c',
        `(${writer('child.log')}) & ${held('long')}; kill $!; echo done`,
      ]);
      await untilGrowing(sandbox, 'child.log');
      expect((await sandbox.exec(['true'])).exitCode).toBe(0);
      await untilGrowing(sandbox, 'child.log');
      await sandbox.writeFile('long.release', '');
      expect(await long).toMatchObject({ exitCode: 0, stdout: 'done\n' });
    });
  }, 300_000);
});
