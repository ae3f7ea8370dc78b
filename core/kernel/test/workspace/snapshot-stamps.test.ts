import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
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
} from '../../src/index.js';

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
    const workspace = new FolderWorkspace(root, excludeMatcher([]), Number.POSITIVE_INFINITY);
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
    const workspace = new FolderWorkspace(root, excludeMatcher([]), Number.POSITIVE_INFINITY);
    await workspace.snapshot(new BlobSnapshotStore(join(dir, 'other')));
    const ref = await workspace.snapshot(store);
    expect(calls).toEqual({ add: ['a.txt'], addStored: [] });
    expect(await blobOf(ref, 'a.txt')).toBe(sha256('a'));
  });
});
