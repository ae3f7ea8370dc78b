import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { chmod, link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Sandbox, SandboxSpec } from '@longhaul/core';
import { FakeSnapshotStore } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEnvironment, localOptions } from '../src/index.js';
import { passableTemp } from './passable-temp.js';
import { running } from './running.js';

// When the runner is root, a sandbox's commands run as a host user of its own, in both modes.
// What that user can and cannot do is seen here from the host's side. CI runs as root.

let base: string;
const first = localOptions.parse({}).uids.first;

function spec(runId = 'run-priv'): SandboxSpec {
  return {
    runId,
    trialId: 'task.h.s.m.r1',
    purpose: 'agent',
    task: { id: 'task', root: join(base, 'task'), seed: join(base, 'task', 'seed') },
    needs: {},
  };
}

function environment(options: Record<string, unknown> = {}) {
  // Short names: a hardened sandbox's relay sockets are in its folder, and a socket path past 107
  // bytes is cut short, which the sandbox copes with only within the sockets' own names.
  return new LocalEnvironment(
    localOptions.parse({ root: join(base, 's'), ...options }),
    new FakeSnapshotStore(),
    base,
  );
}

/** The real and effective uid of a host process, from /proc. */
async function hostUids(pid: number): Promise<number[]> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const [, real, effective] = /^Uid:\s+(\d+)\s+(\d+)/m.exec(status) ?? [];
  return [Number(real), Number(effective)];
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await delay(50)) if (await check()) return;
  throw new Error(`${what} within ${ms} ms`);
}

beforeAll(async () => {
  base = await passableTemp('lhp-');
  await mkdir(join(base, 'task', 'seed', 'pkg'), { recursive: true });
  await writeFile(join(base, 'task', 'seed', 'pkg', 'seeded.txt'), 'seed\n');
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe.skipIf(!prerequisites.root())('a root runner gives each sandbox a host user of its own', () => {
  for (const isolation of ['none', 'bubblewrap'] as const) {
    describe.skipIf(isolation === 'bubblewrap' && !prerequisites.bubblewrap())(
      `isolation: ${isolation}`,
      () => {
        it('runs every process of a command as that user, with no groups, and frees it at close', async () => {
          const sandbox = await environment({ isolation }).open(spec());
          const other = await environment({ isolation }).open(spec());
          let uid: number | undefined;
          try {
            const sleeper = await sandbox.start(['sleep', '300']);
            // The leader on the host: sh, prlimit, setpriv, then the program (or nsenter and bwrap).
            await until(async () => (await hostUids(sleeper.pid!))[0] !== 0, 'the command dropped root');
            const [real, effective] = await hostUids(sleeper.pid!);
            uid = real;
            expect(real).toBeGreaterThanOrEqual(first);
            expect(effective).toBe(real);
            const status = await readFile(`/proc/${sleeper.pid}/status`, 'utf8');
            expect(/^Groups:\s*$/m.test(status), status).toBe(true);
            expect(/^NoNewPrivs:\s+1$/m.test(status), 'setuid programs could elevate it').toBe(true);
            const otherSleeper = await other.start(['sleep', '300']);
            await until(
              async () => (await hostUids(otherSleeper.pid!))[0] !== 0,
              'the other command dropped root',
            );
            expect((await hostUids(otherSleeper.pid!))[0], 'two sandboxes share a user').not.toBe(uid);
            expect(existsSync(`/run/longhaul/uids/${uid}`), 'the uid is not claimed').toBe(true);
          } finally {
            await Promise.all([sandbox.close(), other.close()]);
          }
          expect(existsSync(`/run/longhaul/uids/${uid}`), 'the uid was not freed at close').toBe(false);
        });

        it("cannot read the runner's environment or write the runner's files", async () => {
          const owned = join(base, `runner-file-${isolation}`);
          await writeFile(owned, 'runner\n');
          await chmod(owned, 0o666 & ~0o022);
          const sandbox = await environment({ isolation }).open(spec());
          try {
            const environ = await sandbox.exec(['cat', `/proc/${process.pid}/environ`]);
            expect(environ.exitCode, "read the runner's environment").not.toBe(0);
            // Plain: refused. Hardened: the path is not there, and a write makes a file of its own /tmp.
            const write = await sandbox.exec(['sh', '-c', `echo agent >> ${owned}`]);
            if (isolation === 'none') expect(write.exitCode, `wrote ${owned}`).not.toBe(0);
            expect(await readFile(owned, 'utf8')).toBe('runner\n');
          } finally {
            await sandbox.close();
          }
        });

        it('owns its workspace: seeded files, files the runner writes and the folders it makes', async () => {
          const sandbox = await environment({ isolation }).open(spec());
          try {
            await sandbox.writeFile('made/by/runner.txt', 'runner\n');
            const edit = await sandbox.exec([
              'sh',
              '-c',
              'echo agent >> made/by/runner.txt && echo agent >> pkg/seeded.txt && touch made/by/new.txt && rm -r made',
            ]);
            expect(edit, edit.stderr).toMatchObject({ exitCode: 0 });
            const restored = await sandbox.snapshot();
            await sandbox.writeFile('later.txt', 'x');
            await sandbox.restore(restored);
            expect((await sandbox.exec(['sh', '-c', 'echo agent >> pkg/seeded.txt'])).exitCode).toBe(0);
          } finally {
            await sandbox.close();
          }
        });

        it('never gives away or writes a host file hard-linked into the workspace', async () => {
          const outside = join(base, `outside-${isolation}.txt`);
          await writeFile(outside, 'host\n');
          const sandbox = await environment({ isolation }).open(spec());
          try {
            await link(outside, join(sandbox.workspace, 'linked.txt'));
            await expect(sandbox.writeFile('linked.txt', 'overwritten')).rejects.toMatchObject({
              errorClass: 'sandbox',
              message: expect.stringMatching(/hard link to a file of another user/),
            });
            expect(await readFile(outside, 'utf8')).toBe('host\n');
            expect(statSync(outside).uid).toBe(0);
          } finally {
            await sandbox.close();
          }
        });

        it('says why a program in a folder closed to other users does not run', async () => {
          const closed = join(base, `closed-${isolation}`);
          await mkdir(closed, { mode: 0o700 });
          await writeFile(join(closed, 'tool.sh'), '#!/bin/sh\necho ran\n', { mode: 0o755 });
          const sandbox = await environment(
            isolation === 'bubblewrap' ? { isolation, mounts: [] } : { isolation },
          ).open(spec());
          try {
            const result = await sandbox.exec([join(closed, 'tool.sh')]);
            expect(result.exitCode).not.toBe(0);
            if (isolation === 'none')
              expect(result.stderr).toContain(
                `cannot reach ${join(closed, 'tool.sh')}: ${closed} is closed to other users`,
              );
          } finally {
            await sandbox.close();
          }
        });
      },
    );
  }

  it('refuses a bubblewrap mount that its user cannot reach, naming the folder', async () => {
    if (!prerequisites.bubblewrap()) return;
    const closed = join(base, 'closed-mount');
    await mkdir(join(closed, 'tools'), { recursive: true, mode: 0o700 });
    await chmod(closed, 0o700);
    await expect(
      environment({ isolation: 'bubblewrap', mounts: [join(closed, 'tools')] }).open(spec()),
    ).rejects.toMatchObject({
      errorClass: 'sandbox',
      message: expect.stringMatching(
        /cannot be mounted for the sandbox's own user: .*closed-mount is closed/,
      ),
    });
  });

  it('maps the hardened sandbox to its host user: the relay namespace is that uid, not root', async () => {
    if (!prerequisites.bubblewrap()) return;
    const sandbox = await environment({ isolation: 'bubblewrap' }).open(spec());
    try {
      const sleeper = await sandbox.start(['sleep', '300']);
      await until(async () => (await hostUids(sleeper.pid!))[0] !== 0, 'the command dropped root');
      const [uid] = await hostUids(sleeper.pid!);
      const inside = await sandbox.exec(['cat', '/proc/self/uid_map']);
      // The command's namespace maps agent (1000) to the root of the namespace above it, which bwrap
      // makes for /dev/pts; that one, like the relay's, maps to the sandbox's host uid.
      expect(inside.stdout.trim().split(/\s+/)[0]).toBe('1000');
      const relays = spawnSync('pgrep', ['-u', String(uid), '-f', 'relay.mjs'], { encoding: 'utf8' })
        .stdout.trim()
        .split('\n')
        .filter(Boolean);
      // bwrap itself stays in the host's namespace (its map is the identity); the relay is in its own.
      const maps = await Promise.all(
        relays.map(async (pid) =>
          (await readFile(`/proc/${pid}/uid_map`, 'utf8')).trim().split(/\s+/).join(' '),
        ),
      );
      expect(maps).toContain(`0 ${uid} 1`);
      expect(maps.filter((map) => map !== '0 0 4294967295' && map !== `0 ${uid} 1`)).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });

  it("finds a program past a folder of the runner's own on its PATH (a root's pyenv shims)", async () => {
    // A folder only root can search, first on the runner's PATH, holding a program of the same name.
    const own = join(base, 'root-only');
    const shared = join(base, 'shared-bin');
    await mkdir(join(own, 'shims'), { recursive: true });
    await mkdir(shared, { recursive: true });
    await chmod(own, 0o700);
    for (const [dir, said] of [
      [join(own, 'shims'), 'shim'],
      [shared, 'shared'],
    ] as const) {
      await writeFile(join(dir, 'longhaul-probe'), `#!/bin/sh\necho ${said}\n`);
      await chmod(join(dir, 'longhaul-probe'), 0o755);
    }
    const saved = process.env.PATH;
    process.env.PATH = `${join(own, 'shims')}:${shared}:${saved}`;
    try {
      const sandbox = await environment().open(spec());
      try {
        const probe = await sandbox.exec(['longhaul-probe']);
        expect(probe.stderr).toBe('');
        expect(probe.stdout).toBe('shared\n');
        const path = await sandbox.exec(['sh', '-c', 'echo "$PATH"']);
        expect(path.stdout.trim().split(':')).not.toContain(join(own, 'shims'));
      } finally {
        await sandbox.close();
      }
    } finally {
      process.env.PATH = saved;
    }
  });

  it("ends a dead runner's processes, also one that cleared its environment, and frees its uid", async () => {
    const env = environment({ keep: true });
    const sandbox: Sandbox = await env.open(spec('run-dead-user'));
    const escapee =
      'env -i /bin/sh -c \'setsid -f /bin/sh -c "echo \\$\\$ > gone.pid; exec sleep 600" &\'; while [ ! -s gone.pid ]; do sleep 0.05; done; exec sleep 600';
    await sandbox.start(['sh', '-c', escapee]);
    await until(() => existsSync(join(sandbox.workspace, 'gone.pid')), 'the escapee started');
    await delay(100);
    const pid = Number((await readFile(join(sandbox.workspace, 'gone.pid'), 'utf8')).trim());
    const root = join(sandbox.workspace, '..');
    const label = JSON.parse(await readFile(join(root, 'sandbox.json'), 'utf8'));
    expect((await hostUids(pid))[0]).toBe(label.uid);
    // The runner "dies": its label and its claim name a pid that has exited.
    const dead = spawnSync('true').pid;
    await writeFile(join(root, 'sandbox.json'), JSON.stringify({ ...label, pid: dead }));
    const claim = JSON.parse(await readFile(`/run/longhaul/uids/${label.uid}`, 'utf8'));
    await writeFile(`/run/longhaul/uids/${label.uid}`, JSON.stringify({ ...claim, pid: dead }));
    expect(await env.reclaim({ runId: 'run-dead-user' })).toEqual({ removed: [root] });
    expect(await running(pid)).toBe(false);
    expect(existsSync(`/run/longhaul/uids/${label.uid}`)).toBe(false);
    await sandbox.close().catch(() => undefined);
  });
});
