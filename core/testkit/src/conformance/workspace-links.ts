import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sandbox, SkippedFile } from '@longhaul/core';
import { expect } from 'vitest';
import type { Check } from './checks.js';
import type { EnvironmentContext } from './environment.js';

/*
 * What an agent can do to the runner through its workspace: links to the host's folders, loops,
 * and a folder swapped for a link while the runner reads and writes. The runner's file methods
 * (readFile, writeFile, list, pull, snapshot) must never reach the host through any of them.
 */

type LinkContext = Pick<EnvironmentContext, 'environment' | 'spec' | 'raceOps'>;

const text = (data: Uint8Array) => Buffer.from(data).toString('utf8');

/** A folder on the host holding a secret no file method may return, and a clean-up. */
async function hostSecret(): Promise<{
  dir: string;
  file: string;
  secret: string;
  dispose(): Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'longhaul-host-secret-'));
  const secret = `host-secret-${randomBytes(8).toString('hex')}`;
  const file = join(dir, 'secret.txt');
  await writeFile(file, secret);
  return { dir, file, secret, dispose: () => rm(dir, { recursive: true, force: true }) };
}

async function withSandbox(context: LinkContext, use: (sandbox: Sandbox) => Promise<void>): Promise<void> {
  const sandbox = await context.environment.open(context.spec);
  try {
    await use(sandbox);
  } finally {
    await sandbox.close();
  }
}

async function run(sandbox: Sandbox, script: string): Promise<void> {
  const result = await sandbox.exec(['sh', '-c', script]);
  expect(result.exitCode, `${script}: ${result.stderr}`).toBe(0);
}

/** Whether a promise rejects, or what it resolves to. */
async function settle<T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  try {
    return { value: await promise };
  } catch (error) {
    return { error };
  }
}

/**
 * Every listing and the pull of a workspace: none may hold anything below the links in `links`
 * (sorted; each leads out of the workspace), and the pull reports each as skipped.
 */
async function expectNothingBelow(sandbox: Sandbox, links: readonly string[], secret: string): Promise<void> {
  const below = (path: string) => links.some((link) => path.startsWith(`${link}/`));
  const all = await sandbox.list('', { recursive: true });
  expect(all.filter((e) => below(e.path)).map((e) => e.path)).toEqual([]);
  for (const link of links) {
    expect(all.find((e) => e.path === link)?.type, `${link} is listed as a link`).toBe('symlink');
    const through = await settle(sandbox.list(link, { recursive: true }));
    expect((through.value ?? []).filter((e) => below(e.path)).map((e) => e.path)).toEqual([]);
  }
  const skipped: SkippedFile[] = [];
  const files = await sandbox.pull({ onSkipped: (file) => skipped.push(file) });
  expect(files.filter((f) => below(f.path)).map((f) => f.path)).toEqual([]);
  expect(files.some((f) => text(f.data).includes(secret))).toBe(false);
  // A snapshot holds no host path: each of these links leads out, so it is recorded as skipped.
  expect(files.filter((f) => links.includes(f.path)).map((f) => f.path)).toEqual([]);
  expect(skipped.filter((f) => links.includes(f.path)).map((f) => [f.path, f.reason])).toEqual(
    links.map((link) => [link, 'link']),
  );
  await sandbox.snapshot();
}

/** A Python loop that swaps `d` and `l` (renameat2 RENAME_EXCHANGE) until `stop` appears or time runs out. */
const swapper = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
swap = libc.renameat2
AT_FDCWD, RENAME_EXCHANGE = -100, 2
deadline = time.time() + float(sys.argv[1])
swaps = 0
print('ready', flush=True)
while time.time() < deadline:
    for _ in range(200):
        if swap(AT_FDCWD, b'race/d', AT_FDCWD, b'race/l', RENAME_EXCHANGE) == 0:
            swaps += 1
    if os.path.exists('race/stop'):
        break
print('swaps', swaps, flush=True)
`;

export const linkChecks: Check<LinkContext>[] = [
  {
    name: 'a link in a middle component is never followed out of the workspace, even to what the sandbox itself holds',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        // Outside the workspace but inside the sandbox's own world (its HOME, its /etc), so an
        // environment whose file methods run inside the sandbox is tried too, with their privileges.
        await run(
          sandbox,
          'mkdir -p "$HOME/victim" && echo kept > "$HOME/victim/file" && ln -s / r1 && ln -s "$HOME" r3',
        );
        // Every breach is collected first, so a failure names them all.
        const breaches: string[] = [];
        for (const path of ['r1/etc/passwd', 'r3/victim/file']) {
          const read = await settle(sandbox.readFile(path));
          if (read.value !== undefined)
            breaches.push(`readFile ${path} returned ${JSON.stringify(text(read.value).slice(0, 40))}`);
        }
        const listed = await settle(sandbox.list('r3/victim'));
        if ((listed.value ?? []).length > 0)
          breaches.push(`list r3/victim listed ${listed.value!.map((e) => e.path)}`);
        await settle(sandbox.remove('r3/victim/file'));
        await settle(sandbox.writeFile('r3/victim/written', 'leak'));
        await settle(sandbox.push([{ path: 'r3/victim/pushed', mode: 0o644, data: Buffer.from('leak') }]));
        const after = await sandbox.exec(['sh', '-c', 'cat "$HOME/victim/file"; ls -A "$HOME/victim"']);
        if (after.stdout !== 'kept\nfile\n')
          breaches.push(
            `remove, writeFile and push through r3 left HOME/victim as ${JSON.stringify(after.stdout)}`,
          );
        expect(breaches).toEqual([]);
      }),
  },
  {
    name: 'names that are not UTF-8 are left out of pulls and snapshots and reported with reason name',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        await run(
          sandbox,
          `mkdir odd && printf latin > "$(printf 'odd/a-\\377.txt')" && printf ok > odd/fine.txt`,
        );
        const skipped: SkippedFile[] = [];
        const files = await sandbox.pull({ onSkipped: (file) => skipped.push(file) });
        const odd = files.filter((f) => f.path.startsWith('odd/')).map((f) => f.path);
        expect(odd, 'only the UTF-8 name is pulled').toEqual(['odd/fine.txt']);
        expect(skipped.map((f) => f.reason)).toEqual(['name']);
        expect(skipped[0]?.path.startsWith('odd/a-')).toBe(true);
        const ref = await sandbox.snapshot();
        await sandbox.remove('odd');
        await sandbox.restore(ref);
        expect((await sandbox.list('odd')).map((e) => e.path)).toEqual(['odd/fine.txt']);
      }),
  },
  {
    name: 'a link to / is never followed: reads and writes through it are refused, listings and pulls stop at it',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        const host = await hostSecret();
        try {
          await run(sandbox, 'ln -s / x');
          const read = await settle(sandbox.readFile(`x${host.file}`));
          expect(read.value && text(read.value), 'read a host file through x -> /').toBeUndefined();
          await expectNothingBelow(sandbox, ['x'], host.secret);
          // An environment may refuse the write or replace the link by a folder; never write the host.
          await settle(sandbox.writeFile(`x${host.dir}/written.txt`, 'leak'));
          expect(existsSync(join(host.dir, 'written.txt')), 'wrote a host file through x -> /').toBe(false);
        } finally {
          await host.dispose();
        }
      }),
  },
  {
    name: 'listings, reads and pulls through a link to a host folder return nothing of it',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        const host = await hostSecret();
        try {
          await run(sandbox, `ln -s '${host.dir}' p && ln -s '${host.file}' s`);
          for (const path of ['p/secret.txt', 's']) {
            const read = await settle(sandbox.readFile(path));
            expect(read.value && text(read.value), `read the host's secret through ${path}`).toBeUndefined();
          }
          const listed = await sandbox.list('', { recursive: true });
          expect(listed.filter((e) => e.path.includes('secret.txt')).map((e) => e.path)).toEqual([]);
          await expectNothingBelow(sandbox, ['p', 's'], host.secret);
        } finally {
          await host.dispose();
        }
      }),
  },
  {
    name: 'loops of links cost one entry each: listings, pulls and reads end',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        await run(sandbox, 'ln -s . self && ln -s b a && ln -s a b && mkdir -p d && ln -s .. d/up');
        const all = await sandbox.list('', { recursive: true });
        const links = all.filter((e) => e.type === 'symlink').map((e) => e.path);
        expect(links).toEqual(['a', 'b', 'd/up', 'self']);
        expect(all.filter((e) => /^(self|a|b|d\/up)\//.test(e.path))).toEqual([]);
        await expect(sandbox.readFile('a')).rejects.toThrow();
        const files = await sandbox.pull();
        expect(files.filter((f) => /^(self|a|b|d\/up)\//.test(f.path))).toEqual([]);
        await sandbox.snapshot();
      }),
  },
  {
    name: 'a folder swapped for a link to / while files are read and written never lets a host byte out or a host file in',
    run: (context) =>
      withSandbox(context, async (sandbox) => {
        const host = await hostSecret();
        const inside = (path: string) => `race/d${path}`;
        try {
          // The decoy sits where the host's secret is, seen through the folder: reads hit one or the other.
          await sandbox.writeFile(inside(host.file), 'decoy');
          await run(sandbox, 'ln -s / race/l');
          await sandbox.writeFile('race.py', swapper);
          const swapping = await sandbox.start(['python3', 'race.py', '300']);
          // Reads and writes start once the swapper runs: on a busy machine Python takes seconds to start.
          for (const until = Date.now() + 60_000; !swapping.output().stdout.includes('ready'); ) {
            if (Date.now() > until) throw new Error('the swapper did not start within 60 s');
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          let leaks = 0;
          let decoys = 0;
          let refused = 0;
          try {
            for (let i = 0; i < (context.raceOps ?? 2_000); i++) {
              const read = await settle(sandbox.readFile(inside(host.file)));
              if (read.value === undefined) refused++;
              else if (text(read.value) === 'decoy') decoys++;
              else leaks++;
              await settle(sandbox.writeFile(inside(`${host.dir}/w-${i % 50}.txt`), 'leak'));
            }
            await sandbox.writeFile('race/stop', '');
          } finally {
            await swapping.kill();
          }
          const swaps = /swaps (\d+)/.exec(swapping.output().stdout)?.[1];
          expect(leaks, 'reads that returned a host file').toBe(0);
          expect(await readdir(host.dir), 'files written on the host').toEqual(['secret.txt']);
          // The race ran: the folder was seen both ways.
          expect({ decoys: decoys > 0, refused: refused > 0 }, `swaps: ${swaps}`).toEqual({
            decoys: true,
            refused: true,
          });
        } finally {
          await host.dispose();
        }
      }),
  },
];
