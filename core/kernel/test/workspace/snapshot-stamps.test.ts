import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BlobSnapshotStore,
  excludeMatcher,
  FolderWorkspace,
  type SnapshotWriter,
  sha256,
  walkWorkspace,
} from '../../src/index.js';
import { walkOrder } from '../../src/workspace/stamps.js';

let dir: string;
let root: string;
let store: BlobSnapshotStore;
let calls: { add: string[]; addStored: string[] };

beforeEach(async () => {
  dir = realpathSync(await mkdtemp(join(tmpdir(), 'longhaul-stamps-')));
  root = join(dir, 'workspace');
  mkdirSync(root);
  store = new BlobSnapshotStore(join(dir, 'snapshots'));
  calls = { add: [], addStored: [] };
  const writer = store.writer.bind(store);
  store.writer = (): SnapshotWriter => {
    const inner = writer();
    return {
      add: (file, data) => {
        calls.add.push(file.path);
        return inner.add(file, data);
      },
      addStored: (file, blob) => {
        calls.addStored.push(file.path);
        return inner.addStored!(file, blob);
      },
      skip: (file) => inner.skip(file),
      finish: () => inner.finish(),
    };
  };
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const blobOf = async (ref: string, path: string) =>
  (await store.entries(ref)).find((entry) => entry.path === path)?.blob;

describe('FolderWorkspace.snapshot of a workspace it snapshotted before', () => {
  it('names unchanged files by their blobs and reads a file changed in place, its times set back', async () => {
    writeFileSync(join(root, 'same.txt'), 'unchanged');
    writeFileSync(join(root, 'forged.txt'), 'one');
    // Files changed within the filesystem clock's tick of a snapshot are read again whatever their times.
    await sleep(2_100);
    const workspace = new FolderWorkspace(root, excludeMatcher([]), Number.POSITIVE_INFINITY, {
      scratch: dir,
    });
    const first = await workspace.snapshot(store);
    expect(calls.add.sort()).toEqual(['forged.txt', 'same.txt']);

    const before = statSync(join(root, 'forged.txt'));
    // Its times kept to the nanosecond beside the workspace, and set back after the change.
    execFileSync('touch', ['-r', join(root, 'forged.txt'), join(dir, 'times')]);
    writeFileSync(join(root, 'forged.txt'), 'two');
    execFileSync('touch', ['-r', join(dir, 'times'), join(root, 'forged.txt')]);
    expect(statSync(join(root, 'forged.txt')).mtimeMs).toBe(before.mtimeMs);
    calls = { add: [], addStored: [] };
    const second = await workspace.snapshot(store);

    expect(calls.addStored).toEqual(['same.txt']);
    expect(calls.add).toEqual(['forged.txt']);
    expect(await blobOf(second, 'same.txt')).toBe(await blobOf(first, 'same.txt'));
    expect(await blobOf(second, 'forged.txt')).toBe(sha256('two'));
  });

  it('reads every file again for a snapshot into another store', async () => {
    writeFileSync(join(root, 'a.txt'), 'a');
    await sleep(2_100);
    const workspace = new FolderWorkspace(root, excludeMatcher([]), Number.POSITIVE_INFINITY, {
      scratch: dir,
    });
    await workspace.snapshot(new BlobSnapshotStore(join(dir, 'other')));
    const ref = await workspace.snapshot(store);
    expect(calls).toEqual({ add: ['a.txt'], addStored: [] });
    expect(await blobOf(ref, 'a.txt')).toBe(sha256('a'));
  });
});

/** Names a plain sort and the walk's order disagree on: `a.txt` sorts before `a/x`, and is walked after it. */
const tree = [
  'b.txt',
  'a/x.txt',
  'a.txt',
  'a/b/y.txt',
  'a/b.txt',
  'a-b/z.txt',
  'a/b/c/deep.txt',
  'Z/upper.txt',
  'é/ü.txt',
  '\u{1F600}/face.txt',
  '\uFF01/wide.txt',
  'zz.txt',
];

function makeTree(): void {
  for (const path of tree) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), `bytes of ${path}`);
  }
}

describe("the stamps of a snapshot, kept on disk in the walk's order", () => {
  it('orders paths as the walk visits them', async () => {
    makeTree();
    const walked: string[] = [];
    await walkWorkspace(root, {
      visit: (entry) => {
        if (entry.type === 'file') walked.push(entry.path);
        return true;
      },
    });
    expect(walked).toHaveLength(tree.length);
    expect([...tree].sort(walkOrder)).toEqual(walked);
    expect([...walked].reverse().sort(walkOrder)).toEqual(walked);
  });

  it('names every unchanged file by its blob, however deep, beside folders or past names that sort apart', async () => {
    makeTree();
    await sleep(2_100);
    const workspace = new FolderWorkspace(root, excludeMatcher([]), Number.POSITIVE_INFINITY, {
      scratch: dir,
    });
    await workspace.snapshot(store);
    // Files removed and one added between the snapshots: the stamps after them are still found
    // (zz.txt is walked before Z/upper.txt, though it sorts after it).
    const gone = ['a/b.txt', 'zz.txt'];
    for (const path of gone) await rm(join(root, path));
    writeFileSync(join(root, 'a/b/new.txt'), 'new');
    calls = { add: [], addStored: [] };
    const second = await workspace.snapshot(store);
    expect(calls.add).toEqual(['a/b/new.txt']);
    const kept = tree.filter((path) => !gone.includes(path));
    expect(calls.addStored.sort()).toEqual(kept.sort());
    for (const path of kept) expect(await blobOf(second, path)).toBe(sha256(`bytes of ${path}`));

    // Kept in the folder the workspace was given, one file for the last snapshot, gone on dispose.
    const [stamps] = readdirSync(dir).filter((name) => name.startsWith('longhaul-stamps-'));
    expect(readdirSync(join(dir, stamps!))).toHaveLength(1);
    await workspace.dispose();
    expect(readdirSync(dir).filter((name) => name.startsWith('longhaul-stamps-'))).toEqual([]);
    calls = { add: [], addStored: [] };
    await workspace.snapshot(store);
    expect(calls.addStored).toEqual([]);
  });
});
