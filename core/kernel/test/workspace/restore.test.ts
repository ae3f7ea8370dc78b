import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SnapshotStore, WorkspaceFile } from '../../src/contracts/index.js';
import { BlobSnapshotStore } from '../../src/store/snapshot-store.js';
import { excludeMatcher } from '../../src/workspace/excludes.js';
import { FolderWorkspace, symlinkMode } from '../../src/workspace/folder-workspace.js';

let dir: string;
let root: string;
let host: string;
let store: BlobSnapshotStore;

beforeEach(async () => {
  dir = realpathSync(await mkdtemp(join(tmpdir(), 'longhaul-restore-')));
  root = join(dir, 'workspace');
  host = join(dir, 'host');
  mkdirSync(root);
  mkdirSync(host);
  store = new BlobSnapshotStore(join(dir, 'snapshots'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const file = (path: string, text: string, mode = 0o644): WorkspaceFile => ({
  path,
  mode,
  data: Buffer.from(text),
});
const link = (path: string, target: string): WorkspaceFile => ({
  path,
  mode: symlinkMode | 0o777,
  data: Buffer.from(target),
});

/** Writes files into the workspace, path → text, making their folders. */
function plant(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** Every entry below `folder`: a file's mode and text, a link's target, a folder as `dir`. */
function tree(folder: string, prefix = ''): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    const stat = lstatSync(path);
    const rel = `${prefix}${name}`;
    if (stat.isSymbolicLink()) found[rel] = `-> ${readlinkSync(path)}`;
    else if (stat.isDirectory()) {
      found[rel] = 'dir';
      Object.assign(found, tree(path, `${rel}/`));
    } else found[rel] = `${(stat.mode & 0o777).toString(8)} ${readFileSync(path, 'utf8')}`;
  }
  return found;
}

/** The store as a restore may use it: a snapshot read whole (`entries`, `get`) fails the test. */
function scanOnly(inner: SnapshotStore): SnapshotStore {
  const whole = () => {
    throw new Error('the snapshot was read whole');
  };
  return {
    put: (files, skipped) => inner.put(files, skipped),
    writer: () => inner.writer(),
    get: whole,
    entries: whole,
    scan: (ref) => inner.scan(ref),
    blob: (hash) => inner.blob(hash),
    skipped: (ref) => inner.skipped(ref),
    scanSkipped: (ref) => inner.scanSkipped(ref),
    has: (ref) => inner.has(ref),
  };
}

/** Restores `ref` into the workspace with these excludes, from the store's scan alone. */
async function restore(ref: string, excludes: string[] = []): Promise<void> {
  const workspace = new FolderWorkspace(root, excludeMatcher(excludes), Number.POSITIVE_INFINITY);
  await workspace.restore(scanOnly(store), ref);
}

describe('FolderWorkspace.restore', () => {
  it('writes 20,000 files into an empty workspace exactly as the snapshot holds them, from its scan', async () => {
    // A hundred distinct contents, so the store holds a hundred blobs and the test stays quick.
    const files = Array.from({ length: 20_000 }, (_, i) =>
      file(`many/${String(Math.floor(i / 1000)).padStart(2, '0')}/${i}.txt`, `content ${i % 100}\n`),
    );
    files.push(file('main.py', 'print("hello")\n', 0o755), link('latest', 'many/19/19999.txt'));
    const ref = await store.put(files);
    await restore(ref);
    const restored = tree(root);
    const expected: Record<string, string> = { many: 'dir', latest: '-> many/19/19999.txt' };
    for (const wanted of files.filter((f) => f.mode !== (symlinkMode | 0o777))) {
      expected[wanted.path] = `${wanted.mode.toString(8)} ${Buffer.from(wanted.data).toString('utf8')}`;
      const slash = wanted.path.lastIndexOf('/');
      if (slash > 0) expected[wanted.path.slice(0, slash)] = 'dir';
    }
    expect(Object.keys(restored).length).toBe(20_000 + 2 + 1 + 20);
    expect(restored).toEqual(expected);
  });

  it('leaves a workspace whose only entry is excluded as it is, and writes no excluded path', async () => {
    plant({ '.venv/installed.py': 'kept' });
    const ref = await store.put([
      file('.venv/installed.py', 'from the snapshot'),
      file('.venv/other.py', 'from the snapshot'),
      file('src/app.py', 'app'),
    ]);
    await restore(ref, ['.venv']);
    expect(tree(root)).toEqual({
      '.venv': 'dir',
      '.venv/installed.py': '644 kept',
      src: 'dir',
      'src/app.py': '644 app',
    });
  });

  it('over a workspace: a link named like a wanted folder is replaced, never written through', async () => {
    symlinkSync(host, join(root, 'lib'));
    plant({
      'was-folder/inner.txt': 'inner',
      'was-file': 'a file',
      'same.txt': 'same',
      '.venv/kept': 'kept',
    });
    mkdirSync(join(root, 'empty', 'nested'), { recursive: true });
    const ref = await store.put([
      file('lib/module.py', 'module'),
      file('was-folder', 'a file now'),
      file('was-file/inside.txt', 'a folder now'),
      file('same.txt', 'same'),
      link('to-lib', 'lib'),
    ]);
    await restore(ref, ['.venv']);
    expect(readdirSync(host)).toEqual([]);
    expect(tree(root)).toEqual({
      '.venv': 'dir',
      '.venv/kept': '644 kept',
      lib: 'dir',
      'lib/module.py': '644 module',
      'same.txt': '644 same',
      'to-lib': '-> lib',
      'was-file': 'dir',
      'was-file/inside.txt': '644 a folder now',
      'was-folder': '644 a file now',
    });
  });

  it('refuses a snapshot naming the workspace itself', async () => {
    const ref = await store.put([file('.', 'the root')]);
    await expect(restore(ref)).rejects.toThrow(/is the workspace itself/);
  });
});
