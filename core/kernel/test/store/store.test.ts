import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  BlobSnapshotStore,
  JsonlAppender,
  RunStore,
  readJsonl,
  sha256,
  snapshotDiff,
  type WorkspaceFile,
  workspaceDiff,
  writeFileAtomic,
} from '@longhaul/core';
import { testFolder } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';

const temp = () => testFolder('longhaul-store-');
const file = (path: string, text: string, mode = 0o644): WorkspaceFile => ({
  path,
  mode,
  data: new TextEncoder().encode(text),
});

async function allFiles(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('writeFileAtomic', () => {
  it('never lets a reader see a partly written file', async () => {
    const dir = await temp();
    const target = join(dir, 'big.json');
    const versions = ['a', 'b', 'c', 'd'].map((ch) => ch.repeat(4 * 1024 * 1024));
    await writeFileAtomic(target, versions[0]!);
    let reads = 0;
    let writing = true;
    const reader = (async () => {
      while (writing) {
        const text = await readFile(target, 'utf8');
        expect(versions).toContain(text);
        reads++;
      }
    })();
    for (const version of [...versions, ...versions]) await writeFileAtomic(target, version);
    writing = false;
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect(await readdir(dir)).toEqual(['big.json']);
  });

  it('leaves no temp file behind when the write fails', async () => {
    const dir = await temp();
    // Renaming a file over a directory fails after the temp file was written.
    await writeFile(join(dir, 'placeholder'), '');
    const target = join(dir, 'sub');
    await writeFileAtomic(join(target, 'x'), 'ok');
    await expect(writeFileAtomic(target, 'data')).rejects.toThrow();
    expect((await readdir(dir)).sort()).toEqual(['placeholder', 'sub']);
  });
});

describe('BlobSnapshotStore', () => {
  it('round-trips files with their modes and gives equal workspaces equal refs', async () => {
    const store = new BlobSnapshotStore(join(await temp(), 'snapshots'));
    const files = [file('b.txt', 'bee'), file('bin/run.sh', '#!/bin/sh\n', 0o755), file('a.txt', 'ay')];
    const ref = await store.put(files);
    expect(ref).toMatch(/^[0-9a-f]{64}$/);
    expect(await store.put([...files].reverse())).toBe(ref);
    expect(await store.has(ref)).toBe(true);
    expect(await store.has('0'.repeat(64))).toBe(false);
    const back = await store.get(ref);
    expect(back.map((f) => [f.path, f.mode, new TextDecoder().decode(f.data)])).toEqual([
      ['a.txt', 0o644, 'ay'],
      ['b.txt', 0o644, 'bee'],
      ['bin/run.sh', 0o755, '#!/bin/sh\n'],
    ]);
    expect(await store.put([file('a.txt', 'ay', 0o600), files[0]!, files[1]!])).not.toBe(ref);
  });

  it('stores a file once across snapshots, and the ref is the sha256 of the manifest', async () => {
    const dir = join(await temp(), 'snapshots');
    const store = new BlobSnapshotStore(dir);
    const shared = file('lib.py', 'x = 1\n'.repeat(1000));
    const one = await store.put([shared, file('main.py', 'v1')]);
    const two = await store.put([shared, file('main.py', 'v2'), file('copy.py', 'x = 1\n'.repeat(1000))]);
    const blobs = (await allFiles(join(dir, 'blobs'))).length;
    expect(blobs).toBe(3);
    const manifest = await readFile(join(dir, 'manifests', `${two}.json`), 'utf8');
    expect(sha256(manifest)).toBe(two);
    expect(JSON.parse(manifest).files.map((f: { path: string }) => f.path)).toEqual([
      'copy.py',
      'lib.py',
      'main.py',
    ]);
    expect(one).not.toBe(two);
  });

  it('records the files a pull skipped for their size, and keeps the refs of snapshots without any', async () => {
    const dir = join(await temp(), 'snapshots');
    const store = new BlobSnapshotStore(dir);
    const files = [file('a.txt', 'ay')];
    const plain = await store.put(files);
    expect(await store.put(files, [])).toBe(plain);
    expect(await readFile(join(dir, 'manifests', `${plain}.json`), 'utf8')).not.toContain('skipped');
    expect(await store.skipped(plain)).toEqual([]);
    const skipped = [
      { path: 'z/huge.bin', size: 2 ** 31 },
      { path: 'big.log', size: 40_000_000 },
    ];
    const ref = await store.put(files, skipped);
    expect(ref).not.toBe(plain);
    expect(await store.put(files, [...skipped].reverse())).toBe(ref);
    expect(await store.skipped(ref)).toEqual([skipped[1], skipped[0]]);
    expect((await store.get(ref)).map((f) => f.path)).toEqual(['a.txt']);
    expect((await allFiles(join(dir, 'blobs'))).length).toBe(1);
  });

  it('gives back a workspace of more files than a process may hold open, each blob read once', async () => {
    // More than this machine's and CI's open-file limit (20,000): one open per file would fail EMFILE.
    const store = new BlobSnapshotStore(await temp());
    const files = Array.from({ length: 30_000 }, (_, i) => file(`f/${i}.txt`, i % 2 ? 'odd\n' : ''));
    const back = await store.get(await store.put(files));
    expect(back).toHaveLength(30_000);
    expect(new Set(back.map((f) => Buffer.from(f.data).toString()))).toEqual(new Set(['', 'odd\n']));
    expect(back.find((f) => f.path === 'f/7.txt')?.data).toEqual(new TextEncoder().encode('odd\n'));
  });

  it('stores a stream chunk by chunk with the ref put gives, and gives it back as a stream', async () => {
    const dir = join(await temp(), 'snapshots');
    const store = new BlobSnapshotStore(dir);
    const big = Buffer.alloc(3 * 1024 * 1024 + 5, 'z');
    const files = [file('a.txt', 'ay'), { path: 'big.bin', mode: 0o600, data: big }];
    const writer = store.writer();
    await writer.add(files[0]!, files[0]!.data);
    async function* pieces() {
      for (let at = 0; at < big.length; at += 1 << 20) yield big.subarray(at, at + (1 << 20));
    }
    await writer.add({ path: 'big.bin', mode: 0o600 }, pieces());
    writer.skip({ path: 'huge.log', size: 2 ** 33 });
    const ref = await writer.finish();
    expect(ref).toBe(await store.put(files, [{ path: 'huge.log', size: 2 ** 33 }]));
    const entries = await store.entries(ref);
    expect(entries.map((e) => [e.path, e.mode])).toEqual([
      ['a.txt', 0o644],
      ['big.bin', 0o600],
    ]);
    const blob = store.blob(entries[1]!.blob);
    expect(await blob.size()).toBe(big.length);
    const chunks: Uint8Array[] = [];
    for await (const chunk of blob.stream()) chunks.push(chunk);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(1024 * 1024);
    expect(Buffer.concat(chunks).equals(big)).toBe(true);
    // A stream whose blob is stored already leaves no temp file behind.
    const again = store.writer();
    await again.add({ path: 'big.bin', mode: 0o600 }, pieces());
    await again.finish();
    expect((await allFiles(join(dir, 'blobs'))).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect((await store.get(ref, { include: (path) => path.endsWith('.txt') })).map((f) => f.path)).toEqual([
      'a.txt',
    ]);
  });

  it('says which snapshot is missing', async () => {
    const store = new BlobSnapshotStore(join(await temp(), 'snapshots'));
    await expect(store.get('f'.repeat(64))).rejects.toThrow(/snapshot f{64} is not in/);
    await expect(store.get('../../etc/passwd')).rejects.toThrow(/not a snapshot ref/);
  });
});

describe('workspaceDiff', () => {
  it('writes a unified diff of added, changed, deleted, binary and mode-changed files', async () => {
    const before = [
      file('keep.txt', 'same\n'),
      file('edit.py', 'a = 1\nb = 2\n'),
      file('gone.txt', 'bye\n'),
      file('run.sh', 'x\n'),
    ];
    const after = [
      file('keep.txt', 'same\n'),
      file('edit.py', 'a = 1\nb = 3\n'),
      file('new.txt', 'hello\n'),
      { path: 'img.bin', mode: 0o644, data: new Uint8Array([0, 1, 2]) },
      file('run.sh', 'x\n', 0o755),
    ];
    const patch = await workspaceDiff(before, after);
    expect(patch).toContain(
      'diff --git a/edit.py b/edit.py\n--- a/edit.py\n+++ b/edit.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n',
    );
    expect(patch).toContain(
      'diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null',
    );
    expect(patch).toContain('new file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,1 @@\n+hello');
    expect(patch).toContain('Binary files /dev/null and b/img.bin differ');
    expect(patch).toContain('diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n');
    expect(patch).not.toContain('keep.txt');
    expect(await workspaceDiff(after, after)).toBe('');
  });
});

describe('snapshotDiff', () => {
  it('gives the diff workspaceDiff gives, reading only the blobs of changed files', async () => {
    const store = new BlobSnapshotStore(join(await temp(), 'snapshots'));
    const before = [file('keep.txt', 'same\n'), file('edit.py', 'a = 1\n'), file('gone.txt', 'bye\n')];
    const after = [file('keep.txt', 'same\n'), file('edit.py', 'a = 2\n'), file('new.txt', 'hello\n')];
    const one = await store.put(before, [{ path: 'big.log', size: 2 ** 31 }]);
    const two = await store.put(after, [{ path: 'big.log', size: 2 ** 32 }]);
    const read: string[] = [];
    const blob = store.blob.bind(store);
    store.blob = (hash) => {
      const inner = blob(hash);
      return {
        ...inner,
        bytes: () => {
          read.push(hash);
          return inner.bytes();
        },
      };
    };
    let patch = '';
    for await (const part of snapshotDiff(store, one, two)) patch += part;
    expect(patch).toBe(
      await workspaceDiff(before, after, {
        before: [{ path: 'big.log', size: 2 ** 31 }],
        after: [{ path: 'big.log', size: 2 ** 32 }],
      }),
    );
    expect(patch).toContain('Large files a/big.log');
    expect(read).toHaveLength(4);
    expect(read).not.toContain(sha256('same\n'));
    let whole = '';
    for await (const part of snapshotDiff(store, undefined, one)) whole += part;
    expect(whole).toContain('new file mode 100644\n--- /dev/null\n+++ b/keep.txt');
  });
});

describe('workspaceDiff of large files', () => {
  const bytes = (size: number, fill: string) => ({
    path: 'data.csv',
    mode: 0o644,
    data: Buffer.alloc(size, fill),
  });

  it('names files over 1 MiB with their sizes instead of diffing them line by line', async () => {
    const patch = await workspaceDiff([bytes(2 * 1024 * 1024, 'a\n')], [bytes(3 * 1024 * 1024, 'b\n')]);
    expect(patch).toBe(
      'diff --git a/data.csv b/data.csv\nLarge files a/data.csv (2.0 MiB) and b/data.csv (3.0 MiB) differ\n',
    );
    expect(await workspaceDiff([bytes(2 * 1024 * 1024, 'a\n')], [bytes(2 * 1024 * 1024, 'a\n')])).toBe('');
  });

  it('summarizes files that differ in too many lines instead of computing an edit script for hours', async () => {
    const lines = (prefix: string) => Array.from({ length: 30_000 }, (_, i) => `${prefix}${i}\n`).join('');
    const before = [file('table.txt', lines('a'))];
    const after = [file('table.txt', lines('b'))];
    expect(before[0]!.data.length).toBeLessThan(1024 * 1024);
    expect(await workspaceDiff(before, after)).toBe(
      'diff --git a/table.txt b/table.txt\nFiles a/table.txt and b/table.txt differ in too many lines to show\n',
    );
    // A new file needs no edit search: it is shown whole, however many lines it has.
    expect(await workspaceDiff([], after)).toContain('@@ -0,0 +1,30000 @@\n+b0\n');
  });

  it('names files the snapshots skipped: new, grown past the limit, shrunk under it, deleted', async () => {
    const patch = await workspaceDiff(
      [file('grew.txt', 'small\n'), file('stays.txt', 'x\n')],
      [file('shrank.txt', 'now small\n'), file('stays.txt', 'x\n')],
      {
        before: [
          { path: 'shrank.txt', size: 50_000_000 },
          { path: 'gone.bin', size: 4096 },
          { path: 'same.bin', size: 7 },
        ],
        after: [
          { path: 'grew.txt', size: 2 ** 30 },
          { path: 'new.bin', size: 2 ** 31 },
          { path: 'same.bin', size: 7 },
        ],
      },
    );
    const note = 'over maxFileSize: not in the snapshot';
    expect(patch).toContain(`Large files a/gone.bin (4.0 KiB, ${note}) and /dev/null differ`);
    expect(patch).toContain(`Large files a/grew.txt (6 bytes) and b/grew.txt (1.0 GiB, ${note}) differ`);
    expect(patch).toContain(
      `diff --git a/new.bin b/new.bin\nLarge files /dev/null and b/new.bin (2.0 GiB, ${note}) differ`,
    );
    expect(patch).toContain(
      `Large files a/shrank.txt (47.7 MiB, ${note}) and b/shrank.txt (10 bytes) differ`,
    );
    expect(patch).not.toContain('same.bin');
    expect(patch).not.toContain('stays.txt');
  });
});

describe('JSON Lines', () => {
  it('keeps later records readable after a write cut mid-line', async () => {
    const path = join(await temp(), 'events.jsonl');
    new JsonlAppender(path).append({ n: 1 });
    await appendFile(path, '{"n": 2, "cut');
    const appender = new JsonlAppender(path);
    appender.append({ n: 3 });
    appender.append({ n: 4 });
    expect(await readJsonl(path)).toEqual([{ n: 1 }, { n: 3 }, { n: 4 }]);
  });
});

describe('RunStore', () => {
  it('lays a run out as documented', async () => {
    const store = new RunStore('/runs/r1');
    expect(store.stepDir('t.a.r1', { index: 0, id: 'basics' })).toBe(
      '/runs/r1/trials/t.a.r1/steps/01-basics',
    );
    expect(store.stepFile('t', { index: 11, id: 'x' }, 'scores.json')).toBe(
      '/runs/r1/trials/t/steps/12-x/scores.json',
    );
    expect([store.experimentFile, store.lockFile, store.eventsFile, store.summaryFile]).toEqual([
      '/runs/r1/experiment.yaml',
      '/runs/r1/lock.json',
      '/runs/r1/events.jsonl',
      '/runs/r1/summary.json',
    ]);
    expect(store.memoryDir('t')).toBe('/runs/r1/trials/t/memory');
    expect(store.snapshots.dir).toBe('/runs/r1/snapshots');
  });

  it('stamps events with an ISO time as it appends them', async () => {
    const store = new RunStore(await temp());
    const event = store.appendEvent({ type: 'log', level: 'info', message: 'hi' });
    expect(new Date(event.ts).toISOString()).toBe(event.ts);
    expect(await store.readEvents()).toEqual([event]);
  });
});
