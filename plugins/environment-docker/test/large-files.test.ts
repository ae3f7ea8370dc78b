import { createHash, randomBytes } from 'node:crypto';
import type { SkippedFile } from '@longhaul/core';
import { FakeSnapshotStore } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { describe, expect, it } from 'vitest';
import { baseImageRef, DockerEnvironment, dockerOptions } from '../src/index.js';
import { spec, withSandbox } from './helpers.js';

const dockerReady = prerequisites.docker([baseImageRef()]);

const sha = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

describe.skipIf(!dockerReady)('docker sandbox files of many megabytes', () => {
  it('streams them in and out byte for byte, and leaves out the one over maxFileSize', async () => {
    const store = new FakeSnapshotStore();
    const env = new DockerEnvironment(dockerOptions.parse({ maxFileSize: '24m' }), store);
    const kept = randomBytes(20 * 1024 * 1024);
    await withSandbox(env, spec('large'), async (sandbox) => {
      // In through putArchive (push), out through getArchive (pull), both as streams.
      await sandbox.push([{ path: 'data/kept.bin', mode: 0o600, data: kept }]);
      const inside = await sandbox.exec(['sh', '-c', 'sha256sum data/kept.bin | cut -d" " -f1']);
      expect(inside.stdout.trim()).toBe(sha(kept));
      const made = await sandbox.exec(['sh', '-c', 'head -c 31457280 /dev/urandom > data/over.bin']);
      expect(made.exitCode).toBe(0);
      const skipped: SkippedFile[] = [];
      const pulled = await sandbox.pull({ onSkipped: (file) => skipped.push(file) });
      expect(skipped).toEqual([{ path: 'data/over.bin', size: 31457280 }]);
      expect(pulled.map((f) => [f.path, f.mode & 0o777, sha(f.data)])).toEqual([
        ['data/kept.bin', 0o600, sha(kept)],
      ]);
      const ref = await sandbox.snapshot();
      expect(await store.skipped(ref)).toEqual([{ path: 'data/over.bin', size: 31457280 }]);
      await withSandbox(env, spec('large', { from: ref, purpose: 'scorer' }), async (second) => {
        const listing = await second.exec(['sh', '-c', 'ls data; sha256sum data/kept.bin | cut -d" " -f1']);
        expect(listing.stdout).toBe(`kept.bin\n${sha(kept)}\n`);
      });
    });
  }, 300_000);

  it('lists names, types, sizes and modes as the local environment does, also odd names, and says when a path is missing', async () => {
    const env = new DockerEnvironment(dockerOptions.parse({}), new FakeSnapshotStore());
    await withSandbox(env, spec('list'), async (sandbox) => {
      const made = await sandbox.exec([
        'sh',
        '-c',
        "mkdir -p 'd/a b' && printf 12345 > 'd/a b/-x' && printf 'x' > \"d/new\nline\" && ln -s 'a b' d/link && chmod 700 'd/a b'",
      ]);
      expect(made.exitCode).toBe(0);
      expect(await sandbox.list('d')).toEqual([
        { path: 'd/a b', type: 'dir', size: expect.any(Number), mode: 0o700 },
        { path: 'd/link', type: 'symlink', size: 3, mode: 0o777 },
        { path: 'd/new\nline', type: 'file', size: 1, mode: 0o644 },
      ]);
      expect((await sandbox.list('d/a b', { recursive: true })).map((e) => [e.path, e.size])).toEqual([
        ['d/a b/-x', 5],
      ]);
      expect(await sandbox.list('d/a b/-x')).toEqual([
        { path: 'd/a b/-x', type: 'file', size: 5, mode: 0o644 },
      ]);
      await expect(sandbox.list('nowhere')).rejects.toMatchObject({ code: 'ENOENT' });
    });
  }, 300_000);
});
