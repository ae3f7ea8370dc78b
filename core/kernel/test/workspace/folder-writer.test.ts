import {
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FolderWriter } from '../../src/workspace/folder-writer.js';
import { WorkspaceHandle } from '../../src/workspace/workspace-handle.js';

let root: string;
let host: string;

beforeEach(async () => {
  root = realpathSync(await mkdtemp(join(tmpdir(), 'longhaul-writer-')));
  host = realpathSync(await mkdtemp(join(tmpdir(), 'longhaul-writer-host-')));
  writeFileSync(join(host, 'secret.txt'), 'host secret');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(host, { recursive: true, force: true });
});

describe('FolderWriter', () => {
  it('writes files across more folders than it holds handles for, making the folders', async () => {
    const writer = new FolderWriter(new WorkspaceHandle(root));
    const paths = Array.from({ length: 200 }, (_, i) => `d${i % 100}/sub/f${i}.txt`);
    try {
      await Promise.all(paths.map((path, i) => writer.writeFile(path, Buffer.from(`file ${i}`), 0o640)));
    } finally {
      await writer.close();
    }
    for (const [i, path] of paths.entries()) {
      expect(readFileSync(join(root, path), 'utf8')).toBe(`file ${i}`);
      expect(statSync(join(root, path)).mode & 0o777).toBe(0o640);
    }
  });

  it('replaces a link at the name instead of writing through it, and never opens a folder outside', async () => {
    symlinkSync(join(host, 'secret.txt'), join(root, 'planted'));
    symlinkSync(host, join(root, 'out'));
    mkdirSync(join(root, 'was-a-folder'));
    writeFileSync(join(root, 'was-a-folder', 'inner.txt'), 'inner');
    const writer = new FolderWriter(new WorkspaceHandle(root));
    try {
      await writer.writeFile('planted', Buffer.from('mine'), 0o644);
      await writer.writeFile('was-a-folder', Buffer.from('a file now'), 0o644);
      await writer.symlink('../elsewhere', 'link');
      writeFileSync(join(host, 'blob'), 'copied');
      symlinkSync(join(host, 'secret.txt'), join(root, 'copy-planted'));
      await writer.copyFile(join(host, 'blob'), 'copy-planted', 0o750);
      await expect(writer.writeFile('out/secret.txt', Buffer.from('overwritten'), 0o644)).rejects.toThrow(
        /outside the workspace/,
      );
    } finally {
      await writer.close();
    }
    expect(readFileSync(join(host, 'secret.txt'), 'utf8')).toBe('host secret');
    expect(lstatSync(join(root, 'planted')).isFile()).toBe(true);
    expect(readFileSync(join(root, 'planted'), 'utf8')).toBe('mine');
    expect(readFileSync(join(root, 'was-a-folder'), 'utf8')).toBe('a file now');
    expect(readlinkSync(join(root, 'link'))).toBe('../elsewhere');
    expect(lstatSync(join(root, 'copy-planted')).isFile()).toBe(true);
    expect(readFileSync(join(root, 'copy-planted'), 'utf8')).toBe('copied');
    expect(statSync(join(root, 'copy-planted')).mode & 0o777).toBe(0o750);
  });
});
