import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type WalkEntry, type WalkSkip, WorkspaceHandle, walkWorkspace } from '../../src/index.js';

let root: string;
let host: string;

beforeEach(async () => {
  root = realpathSync(await mkdtemp(join(tmpdir(), 'longhaul-walk-')));
  host = realpathSync(await mkdtemp(join(tmpdir(), 'longhaul-walk-host-')));
  writeFileSync(join(host, 'secret.txt'), 'host secret');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(host, { recursive: true, force: true });
});

async function walk(options: { maxDepth?: number; maxEntries?: number } = {}, path = '') {
  const entries: WalkEntry[] = [];
  const skipped: WalkSkip[] = [];
  await walkWorkspace(
    root,
    { ...options, visit: (entry) => void entries.push(entry), onSkipped: (skip) => void skipped.push(skip) },
    path,
  );
  return { entries, skipped, paths: entries.map((e) => `${e.path}:${e.type}`) };
}

describe('walkWorkspace', () => {
  it('lists links as links and never enters them: a link to /, to a host folder, loops', async () => {
    mkdirSync(join(root, 'd'));
    writeFileSync(join(root, 'd', 'f.txt'), 'f');
    symlinkSync('/', join(root, 'x'));
    symlinkSync(host, join(root, 'p'));
    symlinkSync('.', join(root, 'self'));
    symlinkSync('..', join(root, 'd', 'up'));
    const { paths, entries } = await walk();
    // A folder's entries come before what is in its folders.
    expect(paths).toEqual([
      'd:dir',
      'p:symlink',
      'self:symlink',
      'x:symlink',
      'd/f.txt:file',
      'd/up:symlink',
    ]);
    expect(entries.find((e) => e.path === 'x')?.target).toBe('/');
  });

  it('reads files through their folder handle, never a FIFO, a socket or a device', async () => {
    writeFileSync(join(root, 'a.txt'), 'abc');
    execFileSync('mkfifo', [join(root, 'fifo')]);
    execFileSync('python3', [
      '-c',
      `import socket; socket.socket(socket.AF_UNIX).bind(${JSON.stringify(join(root, 'sock'))})`,
    ]);
    const device = process.getuid?.() === 0;
    if (device) execFileSync('mknod', [join(root, 'null'), 'c', '1', '3']);
    const reads: Record<string, unknown> = {};
    await walkWorkspace(root, {
      visit: async (entry) => {
        const data = await entry.read();
        reads[`${entry.path}:${entry.type}`] = typeof data === 'string' ? data : Buffer.from(data).toString();
      },
    });
    expect(reads).toEqual({
      'a.txt:file': 'abc',
      'fifo:special': 'type',
      'sock:special': 'type',
      ...(device ? { 'null:special': 'type' } : {}),
    });
  });

  it('skips names that are not UTF-8, with their reason', async () => {
    writeFileSync(
      Buffer.concat([Buffer.from(`${root}/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')]),
      'x',
    );
    writeFileSync(join(root, 'good.txt'), 'y');
    const { paths, skipped } = await walk();
    expect(paths).toEqual(['good.txt:file']);
    expect(skipped).toEqual([{ path: 'bad-\ufffd\ufffd.txt', size: 0, reason: 'name' }]);
  });

  it('stops at its depth and entry limits and says where', async () => {
    // 2,000 levels (8,000 bytes of path, twice PATH_MAX), made one level at a time; bench/workspace-walk goes to 10,000.
    execFileSync('python3', [
      '-c',
      'import os,sys\nos.chdir(sys.argv[1])\nfor _ in range(2000):\n    os.mkdir("nnn"); os.chdir("nnn")\nopen("deep.txt","w").write("deep")',
      root,
    ]);
    const deep = await walk();
    expect(deep.entries).toHaveLength(257);
    expect(deep.skipped).toEqual([{ path: Array(257).fill('nnn').join('/'), size: 0, reason: 'depth' }]);
    // A path-based removal cannot name the bottom; the handle-based one removes it all.
    await new WorkspaceHandle(root).remove('nnn');
    expect(existsSync(join(root, 'nnn'))).toBe(false);
  });

  it('stops after maxEntries entries and notes the folder', async () => {
    mkdirSync(join(root, 'many'));
    for (let i = 0; i < 50; i++) writeFileSync(join(root, 'many', `f${i}`), '');
    const { entries, skipped } = await walk({ maxEntries: 20 });
    expect(entries.length).toBeLessThanOrEqual(20);
    expect(skipped).toEqual([{ path: 'many', size: 0, reason: 'count' }]);
  });

  it('keeps the files beside a folder too large to walk: the limit cuts inside the folder', async () => {
    // The agent's program sorts after the folder an agent filled, as main.py after a-many/.
    mkdirSync(join(root, 'a-many', 'sub'), { recursive: true });
    for (let i = 0; i < 50; i++) writeFileSync(join(root, 'a-many', 'sub', `f${i}`), '');
    writeFileSync(join(root, 'main.py'), 'print("hello")\n');
    const { entries, skipped } = await walk({ maxEntries: 20 });
    expect(entries.map((e) => e.path).slice(0, 3)).toEqual(['a-many', 'main.py', 'a-many/sub']);
    expect(skipped).toEqual([{ path: 'a-many/sub', size: 0, reason: 'count' }]);
  });
});

describe('WorkspaceHandle', () => {
  it('follows links that stay inside and refuses those that leave', async () => {
    const workspace = new WorkspaceHandle(root);
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'sub', 'in.txt'), 'inside');
    symlinkSync('sub', join(root, 'rel'));
    symlinkSync(join(root, 'sub', 'in.txt'), join(root, 'abs'));
    symlinkSync('../..', join(root, 'sub', 'climb'));
    symlinkSync(host, join(root, 'p'));
    symlinkSync(join(host, 'new.txt'), join(root, 'dangling'));
    expect((await workspace.readFile('rel/in.txt')).toString()).toBe('inside');
    expect((await workspace.readFile('abs')).toString()).toBe('inside');
    await expect(workspace.readFile('sub/climb/anything')).rejects.toThrow(/outside/);
    await expect(workspace.readFile('p/secret.txt')).rejects.toThrow(/outside the workspace/);
    await expect(workspace.readFile(`sub/climb/${host.slice(1)}/secret.txt`)).rejects.toThrow(/outside/);
    await expect(workspace.writeFile('dangling', 'leak')).rejects.toThrow(/outside/);
    await expect(workspace.writeFile('p/new.txt', 'leak')).rejects.toThrow(/outside/);
    expect(existsSync(join(host, 'new.txt'))).toBe(false);
    await workspace.writeFile('rel/made/deep.txt', 'made', 0o600);
    expect(readFileSync(join(root, 'sub', 'made', 'deep.txt'), 'utf8')).toBe('made');
  });

  it('removes a link, not what it points to, and never empties a host folder through one', async () => {
    const workspace = new WorkspaceHandle(root);
    mkdirSync(join(root, 'd'));
    symlinkSync(host, join(root, 'd', 'p'));
    symlinkSync(host, join(root, 'q'));
    await workspace.remove('q');
    await workspace.remove('d');
    expect(existsSync(join(root, 'd'))).toBe(false);
    expect(existsSync(join(root, 'q'))).toBe(false);
    expect(readFileSync(join(host, 'secret.txt'), 'utf8')).toBe('host secret');
    await expect(workspace.remove('')).rejects.toThrow(/workspace itself/);
    await workspace.remove('no/such/path');
  });
});
