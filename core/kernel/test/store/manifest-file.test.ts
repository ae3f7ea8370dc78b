import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BlobSnapshotStore,
  type ManifestEntry,
  manifestText,
  type SkippedFile,
  sha256,
  snapshotDiff,
  type WorkspaceFile,
  workspaceDiff,
} from '@longhaul/core';
import { describe, expect, it } from 'vitest';

const temp = () => mkdtemp(join(tmpdir(), 'longhaul-manifest-'));

/** A small seeded generator (mulberry32): the same entries on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Characters whose order or escaping a hand-written sort or scanner could get wrong: a surrogate
// pair (U+1F600, U+10000) sorts before U+E000 and U+FFFF by UTF-16 units, after them by code point.
const characters = [
  'a',
  'b',
  'Z',
  '/',
  '.',
  'é',
  '日',
  '😀',
  '𐀀',
  '\uffff',
  '\ue000',
  '"',
  '\\',
  '\n',
  '\t',
  '\u0001',
  '\u007f',
  ' ',
  '\u2028',
  '{',
  '}',
  ',',
  ']',
];

function paths(next: () => number, count: number, longest = 6): string[] {
  return Array.from({ length: count }, () =>
    Array.from(
      { length: 1 + Math.floor(next() * longest) },
      () => characters[Math.floor(next() * characters.length)],
    ).join(''),
  );
}

async function tempFiles(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).filter((name) => name.endsWith('.tmp'));
}

const reasons = [undefined, 'size', 'name', 'link', 'type'] as const;

describe('a manifest written a run at a time', () => {
  it('is byte for byte the manifest manifestText makes, with far more entries than a run', async () => {
    const dir = join(await temp(), 'snapshots');
    const store = new BlobSnapshotStore(dir, 7);
    // Runs of more than a read's 64 KiB, cut inside characters of several bytes.
    const wide = new BlobSnapshotStore(dir, 1500);
    const next = random(44);
    const blobs = [sha256('one'), sha256('two'), sha256('three')];
    for (const [index, blob] of blobs.entries()) {
      const writer = store.writer();
      await writer.add(
        { path: 'seed', mode: 0o644 },
        new TextEncoder().encode(['one', 'two', 'three'][index]),
      );
      await writer.finish();
      expect(await store.holds(blob)).toBe(true);
    }
    for (const [count, skips, longest, writing] of [
      [0, 0, 6, store],
      [1, 0, 6, store],
      [7, 7, 6, store],
      [1000, 300, 6, store],
      [4000, 10, 80, wide],
    ] as const) {
      // Paths repeat (the same path added twice keeps both entries, in the order they came).
      const files: ManifestEntry[] = paths(next, count, longest).map((path) => ({
        path,
        mode: [0o644, 0o755, 0o120777][Math.floor(next() * 3)]!,
        blob: blobs[Math.floor(next() * 3)]!,
      }));
      const skipped: SkippedFile[] = paths(next, skips).map((path) => ({
        path,
        size: Math.floor(next() * 2 ** 40),
        ...(reasons[Math.floor(next() * reasons.length)]
          ? { reason: reasons[Math.floor(next() * reasons.length)] }
          : {}),
      }));
      const writer = writing.writer();
      for (const [index, file] of files.entries()) {
        expect(await writer.addStored!(file, file.blob)).toBe(true);
        if (index % 3 === 0 && skipped[index / 3]) writer.skip(skipped[index / 3]!);
      }
      for (const file of skipped.slice(Math.ceil(files.length / 3))) writer.skip(file);
      const ref = await writer.finish();
      const text = manifestText(files, skipped);
      expect(ref).toBe(sha256(text));
      expect(await readFile(join(dir, 'manifests', `${ref}.json`), 'utf8')).toBe(text);
      const parsed = JSON.parse(text) as { files: ManifestEntry[]; skipped?: SkippedFile[] };
      expect(await store.entries(ref)).toEqual(parsed.files);
      // Sorted by UTF-16 code units, as Array.prototype.sort sorts strings.
      expect(parsed.files.map((file) => file.path)).toEqual(files.map((file) => file.path).sort());
      expect(await store.skipped(ref)).toEqual(parsed.skipped ?? []);
      expect(await tempFiles(dir)).toEqual([]);
    }
  });

  it('reads manifests written whole by manifestText, as older runs have them', async () => {
    const dir = join(await temp(), 'snapshots');
    const store = new BlobSnapshotStore(dir);
    const next = random(7);
    const files = paths(next, 500).map((path) => ({ path, mode: 0o644, blob: sha256(path) }));
    const skipped = paths(next, 50).map((path) => ({ path, size: 5, reason: 'name' as const }));
    await mkdir(join(dir, 'manifests'), { recursive: true });
    for (const left of [[], skipped]) {
      const text = manifestText(files, left);
      await writeFile(join(dir, 'manifests', `${sha256(text)}.json`), text);
      const parsed = JSON.parse(text) as { files: ManifestEntry[]; skipped?: SkippedFile[] };
      const scanned: ManifestEntry[] = [];
      for await (const entry of store.scan(sha256(text))) scanned.push(entry);
      expect(scanned).toEqual(parsed.files);
      expect(await store.skipped(sha256(text))).toEqual(parsed.skipped ?? []);
      expect((await store.get(sha256(text), { include: () => false })).length).toBe(0);
    }
  });

  it('says which snapshot and which byte when a manifest is cut or is not what the store writes', async () => {
    const dir = join(await temp(), 'snapshots');
    const store = new BlobSnapshotStore(dir);
    const files = [
      { path: 'a "quoted" {name}', mode: 0o644, blob: sha256('a') },
      { path: 'b\\c', mode: 0o755, blob: sha256('b') },
    ];
    const text = manifestText(files, [{ path: 'big', size: 2 ** 33 }]);
    const ref = 'e'.repeat(64);
    const manifest = join(dir, 'manifests', `${ref}.json`);
    await mkdir(join(dir, 'manifests'), { recursive: true });
    for (let cut = 0; cut < text.length; cut++) {
      await writeFile(manifest, text.slice(0, cut));
      await expect(store.entries(ref), `cut at ${cut}`).rejects.toThrow(
        new RegExp(`^snapshot ${ref}: its manifest is not one the store writes \\(.* at byte \\d+\\)$`),
      );
      await expect(store.skipped(ref)).rejects.toThrow(/at byte \d+/);
    }
    const broken = [
      ['{"files":[{"path":"a","mode":420,"blob":"x"},garbage]}\n', 'no entry at byte 45'],
      [
        '{"files":[{"path":"b","mode":420,"blob":"x"},{"path":"a","mode":420,"blob":"x"}]}\n',
        'an entry out of path order at byte 45',
      ],
      ['{"files":[{"path":"a","blob":"x"}]}\n', 'an entry without its path, mode, blob or size at byte 10'],
      ['{"files":[{"path":"a","mode":4{20,"blob":"x"}}]}\n', 'an entry that is not JSON at byte 10'],
      ['{"files":[]}\n{"files":[]}\n', 'text after the manifest at byte 13'],
      ['{"files":[],"skipped":[{"path":"a"}]}\n', 'an entry without its path, mode, blob or size at byte 23'],
    ];
    for (const [bad, what] of broken) {
      await writeFile(manifest, bad!);
      const error = await store.entries(ref).then(
        () => undefined,
        (thrown: Error) => thrown,
      );
      const skippedError = await store.skipped(ref).then(
        () => undefined,
        (thrown: Error) => thrown,
      );
      expect([error?.message, skippedError?.message].join('\n'), bad).toContain(what);
      expect((error ?? skippedError) as { errorClass?: string }).toMatchObject({ errorClass: 'internal' });
    }
  });

  it('leaves no temp file after finish or after an add that failed', async () => {
    const dir = join(await temp(), 'snapshots');
    const store = new BlobSnapshotStore(dir, 4);
    const writer = store.writer();
    for (let i = 0; i < 50; i++)
      await writer.add({ path: `f${i}`, mode: 0o644 }, new TextEncoder().encode(`${i % 3}`));
    for (let i = 0; i < 20; i++) writer.skip({ path: `s${i}`, size: 2 ** 40 });
    // The runs already written (12 of files, 5 of skipped ones) have no names on disk.
    expect(await tempFiles(dir)).toEqual([]);
    async function* failing() {
      yield new TextEncoder().encode('part');
      throw Object.assign(new Error('EIO'), { code: 'EIO' });
    }
    await expect(writer.add({ path: 'bad', mode: 0o644 }, failing())).rejects.toThrow('EIO');
    expect(await tempFiles(dir)).toEqual([]);
    // The snapshot goes on without the file that failed, as a workspace's snapshot does on EIO.
    const ref = await writer.finish();
    expect(await tempFiles(dir)).toEqual([]);
    const entries = await store.entries(ref);
    expect(entries.map((entry) => entry.path)).toEqual(Array.from({ length: 50 }, (_, i) => `f${i}`).sort());
    expect(ref).toBe(
      sha256(
        manifestText(
          entries,
          Array.from({ length: 20 }, (_, i) => ({ path: `s${i}`, size: 2 ** 40 })),
        ),
      ),
    );
  });
});

describe('snapshotDiff of manifests read side by side', () => {
  it('gives what workspaceDiff gives for workspaces of many odd paths, files and skipped ones', async () => {
    const store = new BlobSnapshotStore(join(await temp(), 'snapshots'), 5);
    const next = random(3);
    const workspace = (): { files: WorkspaceFile[]; skipped: SkippedFile[] } => {
      const files = new Map<string, WorkspaceFile>();
      for (const path of paths(next, 120))
        files.set(path, {
          path,
          mode: next() < 0.2 ? 0o755 : 0o644,
          data: new TextEncoder().encode(`line ${Math.floor(next() * 3)}\n`),
        });
      const skipped = paths(next, 15).map((path) => ({ path, size: 1 + Math.floor(next() * 3) }));
      return { files: [...files.values()], skipped };
    };
    const before = workspace();
    const after = workspace();
    const one = await store.put(before.files, before.skipped);
    const two = await store.put(after.files, after.skipped);
    let patch = '';
    for await (const part of snapshotDiff(store, one, two)) patch += part;
    expect(patch).toBe(
      await workspaceDiff(before.files, after.files, { before: before.skipped, after: after.skipped }),
    );
    expect(patch).toContain('Large files');
    let added = '';
    for await (const part of snapshotDiff(store, undefined, two)) added += part;
    expect(added).toBe(await workspaceDiff([], after.files, { after: after.skipped }));
  });
});
