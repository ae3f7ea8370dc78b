import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { type Environment, processLauncher, type SandboxSpec } from '@longhaul/core';
import { FakeSnapshotStore, instantiatePlugin } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import local, { LocalEnvironment, localOptions } from '../src/index.js';
import { reachablePath } from '../src/sandbox-user.js';
import { passableTemp } from './passable-temp.js';

let base: string;
let seed: string;
const text = (data: Uint8Array) => Buffer.from(data).toString('utf8');

function spec(overrides: Partial<SandboxSpec> = {}): SandboxSpec {
  return {
    runId: 'r',
    trialId: 'task.oracle.checkpoints.none.r1',
    purpose: 'agent',
    task: { id: 'task', root: base, seed },
    needs: {},
    ...overrides,
  };
}

function environment(options: Record<string, unknown> = {}) {
  return new LocalEnvironment(
    localOptions.parse({ root: join(base, 'sandboxes'), ...options }),
    new FakeSnapshotStore(),
  );
}

beforeAll(async () => {
  base = await passableTemp('longhaul-local-test-');
  seed = join(base, 'seed');
  await mkdir(seed);
  await writeFile(join(seed, 'main.py'), 'print("hi")\n');
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('local environment', () => {
  it('leaves node_modules, .venv, __pycache__ and .git out of pulls, and pushes leave them alone', async () => {
    const sandbox = await environment().open(spec());
    for (const path of [
      'node_modules/x/index.js',
      '.venv/bin/python',
      'pkg/__pycache__/m.pyc',
      '.git/HEAD',
    ]) {
      await sandbox.writeFile(path, 'x');
    }
    expect((await sandbox.pull()).map((f) => f.path)).toEqual(['main.py']);
    await sandbox.push([]);
    expect((await sandbox.list('node_modules/x')).map((e) => e.path)).toEqual(['node_modules/x/index.js']);
    expect((await sandbox.list('pkg/__pycache__')).map((e) => e.path)).toEqual(['pkg/__pycache__/m.pyc']);
    await expect(sandbox.readFile('main.py')).rejects.toThrow();
    await sandbox.close();
  });

  it('takes its excludes from the options: names, globs and rooted paths', async () => {
    const sandbox = await environment({ excludes: ['*.log', 'build/out'] }).open(spec());
    await sandbox.writeFile('logs/run.log', 'x');
    await sandbox.writeFile('build/out/a.o', 'x');
    await sandbox.writeFile('src/build/out/kept.txt', 'x');
    await sandbox.writeFile('node_modules/kept.js', 'x');
    expect((await sandbox.pull()).map((f) => f.path)).toEqual([
      'main.py',
      'node_modules/kept.js',
      'src/build/out/kept.txt',
    ]);
    await sandbox.close();
  });

  it('gives commands a HOME and TMPDIR of their own, PATH, LANG and the configured variables', async () => {
    const sandbox = await environment({ env: { PYTHONUNBUFFERED: '1' } }).open(spec());
    const result = await sandbox.exec(['sh', '-c', 'echo "$HOME|$TMPDIR|$LANG|$PYTHONUNBUFFERED|$PATH"']);
    const [home, tmp, lang, extra, path] = result.stdout.trim().split('|');
    const root = join(sandbox.workspace, '..');
    expect(home).toBe(join(root, 'home'));
    expect(tmp).toBe(join(root, 'tmp'));
    expect(lang).toBe('C.UTF-8');
    expect(extra).toBe('1');
    // The runner's, but for the folders a root runner's sandbox user cannot search (host-privileges.test.ts).
    expect(path).toBe(prerequisites.root() ? reachablePath(process.env.PATH!) : process.env.PATH);
    const names = (await sandbox.exec(['env'])).stdout.split('\n').map((line) => line.split('=')[0]);
    expect(names.filter(Boolean).sort()).toEqual([
      'HOME',
      'LANG',
      'LC_ALL',
      'LONGHAUL_SANDBOX',
      'PATH',
      'PYTHONUNBUFFERED',
      'TMPDIR',
    ]);
    await sandbox.close();
  });

  it("runs commands as the sandbox's own user when the runner is root (else the runner's), whatever the user option", async () => {
    const sandbox = await environment().open(spec());
    const other = await environment().open(spec());
    try {
      const ids = await Promise.all(
        [
          sandbox.exec(['id', '-u'], { user: 'agent' }),
          sandbox.exec(['id', '-u'], { user: 'root' }),
          other.exec(['id', '-u']),
        ].map(async (result) => (await result).stdout.trim()),
      );
      if (process.getuid?.() !== 0) {
        expect(ids).toEqual(Array(3).fill(String(process.getuid?.())));
        return;
      }
      const [agent, root, another] = ids.map(Number);
      expect(agent).toBeGreaterThanOrEqual(localOptions.parse({}).uids.first);
      expect(root, 'user: root runs as the same unprivileged user').toBe(agent);
      expect(another, 'two sandboxes share a user').not.toBe(agent);
    } finally {
      await Promise.all([sandbox.close(), other.close()]);
    }
  });

  it("runs the task's setup commands in the workspace when it opens", async () => {
    const sandbox = await environment().open(
      spec({ needs: { setup: ['echo one > setup.txt', 'echo two >> setup.txt'] } }),
    );
    expect(text(await sandbox.readFile('setup.txt'))).toBe('one\ntwo\n');
    await sandbox.close();
  });

  it('fails to open with class sandbox when a setup command fails, and leaves nothing behind', async () => {
    const root = join(base, 'failing');
    const env = new LocalEnvironment(localOptions.parse({ root }));
    const error = await env
      .open(spec({ needs: { setup: ['echo broken dependency >&2; exit 2'] } }))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ errorClass: 'sandbox' });
    expect(String((error as Error).message)).toMatch(
      /setup command `echo broken dependency >&2; exit 2` of task task exited with 2:\n.*broken dependency/s,
    );
    expect(await readdir(root)).toEqual([]);
  });

  it('fails to open with class sandbox when the seed directory is missing', async () => {
    const error = await environment()
      .open(spec({ task: { id: 'task', root: base, seed: join(base, 'nope') } }))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ errorClass: 'sandbox', message: expect.stringContaining('nope') });
  });

  it('opens an empty workspace for a task without a seed', async () => {
    const sandbox = await environment().open(spec({ task: { id: 'task', root: base } }));
    expect(await sandbox.list()).toEqual([]);
    await sandbox.close();
  });

  it('refuses paths that leave the workspace through a symlink, but can remove the link', async () => {
    const sandbox = await environment().open(spec());
    await sandbox.exec(['ln', '-s', '/etc', 'escape']);
    await expect(sandbox.readFile('escape/hostname')).rejects.toMatchObject({ errorClass: 'sandbox' });
    await expect(sandbox.writeFile('escape/longhaul-test', 'x')).rejects.toMatchObject({
      errorClass: 'sandbox',
    });
    await expect(sandbox.list('escape')).rejects.toMatchObject({ errorClass: 'sandbox' });
    await sandbox.remove('escape');
    expect(existsSync('/etc/hostname') || existsSync('/etc')).toBe(true);
    expect((await sandbox.list()).map((e) => e.path)).toEqual(['main.py']);
    await sandbox.close();
  });

  it("leaves the task's assets out of snapshots and gives a sandbox opened on one the seed's copy", async () => {
    const withAssets = join(base, 'seed-with-assets');
    await mkdir(join(withAssets, 'data/terms'), { recursive: true });
    await writeFile(join(withAssets, 'main.py'), 'print("hi")\n');
    await writeFile(join(withAssets, 'data/terms/terms.json'), '{}\n');
    const env = environment();
    const task = { id: 'task', root: base, seed: withAssets };
    const needs = { assets: ['data/terms'] };
    const first = await env.open(spec({ task, needs }));
    await first.writeFile('data/terms/terms.json', 'changed by the agent\n');
    await first.writeFile('data/mine.txt', "the agent's\n");
    expect((await first.pull()).map((f) => f.path)).toEqual(['data/mine.txt', 'main.py']);
    const ref = await first.snapshot();
    await first.close();
    const next = await env.open(spec({ task, needs, from: ref }));
    expect(text(await next.readFile('data/terms/terms.json'))).toBe('{}\n');
    expect(text(await next.readFile('data/mine.txt'))).toBe("the agent's\n");
    await next.close();
  });

  it('carries symlinks through snapshots', async () => {
    const sandbox = await environment().open(spec());
    await sandbox.exec(['ln', '-s', 'main.py', 'link.py']);
    const ref = await sandbox.snapshot();
    await sandbox.remove('link.py');
    await sandbox.restore(ref);
    const link = (await sandbox.list()).find((e) => e.path === 'link.py');
    expect(link?.type).toBe('symlink');
    expect(text(await sandbox.readFile('link.py'))).toBe('print("hi")\n');
    await sandbox.close();
  });

  it('records a file over maxFileSize in the snapshot without reading it, and restore never reads it either', async () => {
    const store = new FakeSnapshotStore();
    const env = new LocalEnvironment(
      localOptions.parse({ root: join(base, 'sandboxes'), maxFileSize: '1m' }),
      store,
    );
    const sandbox = await env.open(spec());
    // Sparse, so it costs no disk; past what Node can read into one buffer, so a read would throw.
    const huge = 5 * 1024 ** 3;
    expect((await sandbox.exec(['truncate', '-s', String(huge), 'huge.bin'])).exitCode).toBe(0);
    await sandbox.writeFile('under.bin', Buffer.alloc(1024 * 1024 - 1, 0xfe));
    const ref = await sandbox.snapshot();
    expect(await store.skipped(ref)).toEqual([{ path: 'huge.bin', size: huge }]);
    expect((await store.get(ref)).map((f) => [f.path, f.data.length])).toEqual([
      ['main.py', 12],
      ['under.bin', 1024 * 1024 - 1],
    ]);
    await sandbox.restore(ref);
    expect((await sandbox.list()).map((e) => e.path)).toEqual(['main.py', 'under.bin']);
    expect(localOptions.safeParse({ maxFileSize: 'lots' }).error?.issues[0]?.path).toEqual(['maxFileSize']);
    expect(localOptions.parse({}).maxFileSize).toBe('32m');
    await sandbox.close();
  });

  it('removes its directory on close and stops processes it started', async () => {
    const sandbox = await environment().open(spec());
    const server = await sandbox.start(['sleep', '30']);
    await sandbox.close();
    expect(existsSync(sandbox.workspace)).toBe(false);
    expect(server.pid).toBeDefined();
    expect(() => process.kill(server.pid!, 0)).toThrow();
  });

  it('keeps its directory after close with keep: true', async () => {
    const sandbox = await environment({ keep: true }).open(spec());
    await sandbox.close();
    expect(existsSync(join(sandbox.workspace, 'main.py'))).toBe(true);
  });

  it('exposes a port as a URL on the loopback address', async () => {
    const sandbox = await environment().open(spec());
    expect(await sandbox.expose(5000)).toBe('http://127.0.0.1:5000');
    await expect(sandbox.expose(70_000)).rejects.toMatchObject({ errorClass: 'sandbox' });
    await sandbox.close();
  });

  it('cannot snapshot without a snapshot store, and says which binding is missing', async () => {
    const sandbox = await new LocalEnvironment(localOptions.parse({})).open(spec());
    await expect(sandbox.snapshot()).rejects.toThrow(/tokens.SnapshotStore/);
    await sandbox.close();
  });

  it('gives the exit codes a shell gives for programs that cannot start, with the reason', async () => {
    const sandbox = await environment().open(spec());
    const missing = await sandbox.exec(['no-such-program']);
    expect(missing.exitCode).toBe(127);
    expect(missing.stderr).toContain('no-such-program');
    expect((await sandbox.exec(['./main.py'])).exitCode).toBe(126);
    const badCwd = await sandbox.exec(['ls'], { cwd: 'missing-dir' });
    expect(badCwd.exitCode).toBe(127);
    expect(badCwd.stderr).toContain('missing-dir');
    await sandbox.close();
  });

  it('fails a command whose process launcher dies with class sandbox, and runs the next one', async () => {
    const sandbox = await environment().open(spec());
    const running = sandbox.exec(['sh', '-c', 'touch started; sleep 30'], { timeoutMs: 60_000 });
    while (!existsSync(join(sandbox.workspace, 'started'))) await delay(20);
    process.kill(processLauncher.pid!, 'SIGKILL');
    await expect(running).rejects.toMatchObject({
      errorClass: 'sandbox',
      message: expect.stringMatching(/process launcher .* died/),
    });
    const next = await sandbox.exec(['sh', '-c', 'echo again']);
    expect(next).toMatchObject({ exitCode: 0, stdout: 'again\n' });
    await sandbox.close();
  });

  it('registers as the environment plugin, snapshotting into the store the kernel binds', async () => {
    const store = new FakeSnapshotStore();
    const env = instantiatePlugin<Environment>(
      local,
      { root: join(base, 'sandboxes') },
      { SnapshotStore: store },
    );
    const sandbox = await env.open(spec());
    const ref = await sandbox.snapshot();
    expect(await store.has(ref)).toBe(true);
    expect((await store.get(ref)).map((f) => f.path)).toEqual(['main.py']);
    await sandbox.close();
  });

  it('fails to open in hardened mode, naming what is missing, when bwrap is not installed', async () => {
    const root = join(base, 'no-bwrap');
    const env = new LocalEnvironment(localOptions.parse({ root, isolation: 'bubblewrap' }));
    const path = process.env.PATH;
    process.env.PATH = join(base, 'empty-bin');
    try {
      await expect(env.open(spec())).rejects.toMatchObject({
        errorClass: 'sandbox',
        message: expect.stringMatching(
          /isolation: bubblewrap needs bwrap \(Debian: apt-get install bubblewrap\)/,
        ),
      });
    } finally {
      process.env.PATH = path;
    }
    expect(existsSync(root)).toBe(false);
  });

  it('warns that plain mode isolates nothing, and not in hardened mode (what this host lacks: guarantees.test.ts)', () => {
    const plain = local.warnings?.(localOptions.parse({}), { tasks: [] }) ?? [];
    expect(plain[0]).toMatch(
      /^environment 'local' has no isolation: the agent can read and write everything/,
    );
    const hardened = local.warnings?.(localOptions.parse({ isolation: 'bubblewrap' }), { tasks: [] }) ?? [];
    expect(hardened.filter((line) => /no isolation/.test(line))).toEqual([]);
    expect(hardened).toEqual(
      plain.filter((line) => !/isolation: none|no isolation|runner's own user/.test(line)),
    );
  });

  it('warns, hardened or not, that tasks validated in an image run with the host’s programs instead', () => {
    const task = (id: string, image?: string, validatedIn?: string) => ({
      id,
      source: 'swe-steps',
      environment: { ...(image ? { image } : {}), ...(validatedIn ? { validatedIn } : {}) },
    });
    const validatedIn = 'dataset /x was validated in image shop:abc (Python 3.11.9, pytest 8.3.2)';
    const tasks = [task('a', 'shop:abc', validatedIn), task('b', 'shop:abc', validatedIn), task('c')];
    expect(local.warnings?.(localOptions.parse({ isolation: 'bubblewrap' }), { tasks })).toEqual([
      `source swe-steps: ${validatedIn}; environment local runs its tests with the host's interpreter and packages instead — use environment: docker for the same interpreter and packages`,
    ]);
    expect(
      local.warnings?.(localOptions.parse({ isolation: 'bubblewrap' }), {
        tasks: ['a', 'b', 'c', 'd', 'e'].map((id) => task(id, 'python:3.12')),
      }),
    ).toEqual([
      "source swe-steps: tasks a, b, c and 2 more ask for image python:3.12; environment local runs them with the host's interpreter and packages instead — use environment: docker for the same interpreter and packages",
    ]);
  });

  it('rejects unknown options', () => {
    expect(() => localOptions.parse({ exclude: [] })).toThrow(/exclude/);
  });
});

describe('local environment: requirements', () => {
  const task = (id: string, requires: NonNullable<SandboxSpec['needs']['requires']>) => ({
    id,
    root: base,
    environment: { requires },
  });

  it('refuses, before any sandbox opens, a task whose Python, packages or programs the host lacks', async () => {
    const env = environment({ env: { PATH: '/usr/bin:/bin' } });
    const problems = await env.check([
      task('fine', { python: '3', pythonPackages: ['pytest'], commands: ['sh'] }),
      task('needs-more', { python: '99', pythonPackages: ['no-such-dist-x'], commands: ['no-such-tool-x'] }),
    ]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^task needs-more cannot run on this host: missing python3 >= 99, python3 is 3\.\d+\.\d+; Python packages no-such-dist-x; programs on PATH: no-such-tool-x$/,
    );
  });

  it('uses the PATH its sandboxes get: a program only the env option puts on PATH counts', async () => {
    const bin = join(base, 'bin');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'uv'), '#!/bin/sh\n', { mode: 0o755 });
    const requires = { commands: ['uv'] };
    expect(await environment({ env: { PATH: `${bin}:/usr/bin:/bin` } }).check([task('t', requires)])).toEqual(
      [],
    );
    expect(await environment({ env: { PATH: '/usr/bin:/bin' } }).check([task('t', requires)])).toEqual([
      'task t cannot run on this host: missing programs on PATH: uv',
    ]);
  });
});
