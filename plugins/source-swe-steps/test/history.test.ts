import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobReader } from '../src/blobs.js';
import { Git } from '../src/git.js';
import { changedFiles, splitPatch } from '../src/history.js';

// Reading a history at scale reads it in bulk (one `git log` for every commit's files, one
// `git diff` per PR cut per file, blobs through one `git cat-file`): each must give exactly what
// the per-file git commands it replaces give, on the files that make git quote or encode.
let dir = '';
let git: Git;
let parent = '';
let head = '';

const files: Record<string, string | Buffer> = {
  'src/app.py': 'def run():\n    return 1\n',
  'docs/naïve guide.md': '# Guide\n',
  'tests/test_old.py': 'def test_old():\n    assert True\n',
  'bin/tool.sh': 'echo tool\n',
  'assets/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 255, 0, 10, 13]),
};

async function write(path: string, content: string | Buffer) {
  await mkdir(dirname(join(dir, path)), { recursive: true });
  await writeFile(join(dir, path), content);
}

const run = (...args: string[]) => execa('git', args, { cwd: dir });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'longhaul-swe-steps-history-'));
  await run('init', '-q', '-b', 'main');
  await run('config', 'user.email', 'a@example.com');
  await run('config', 'user.name', 'A');
  for (const [path, content] of Object.entries(files)) await write(path, content);
  await run('add', '-A');
  await run('commit', '-q', '-m', 'start');
  parent = (await run('rev-parse', 'HEAD')).stdout.trim();
  await write('src/app.py', 'def run():\n    return 2\n\n\ndef stop():\n    pass\n');
  await write('docs/naïve guide.md', '# Guide\n\nMore.\n');
  await rm(join(dir, 'tests/test_old.py'));
  await write('tests/test_new.py', 'def test_new():\n    assert True\n');
  await chmod(join(dir, 'bin/tool.sh'), 0o755);
  await write('assets/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 9, 9, 9, 255, 0, 10, 13, 7]));
  await write('data/with\ttab.txt', 'tab\n');
  await run('add', '-A');
  await run('commit', '-q', '-m', 'change (#1)');
  head = (await run('rev-parse', 'HEAD')).stdout.trim();
  git = new Git(dir);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('reading a history in bulk', () => {
  it('lists each file a commit changed, with its status, as `git diff --name-only` does', async () => {
    const changes = (await changedFiles(git, [head])).get(head)!;
    const expected = (await git.run(['diff', '--name-only', '--no-renames', '-z', parent, head]))
      .split('\0')
      .filter(Boolean);
    expect(changes.map((file) => file.path)).toEqual(expected);
    const status = Object.fromEntries(changes.map((file) => [file.path, file.status]));
    expect(status).toMatchObject({
      'tests/test_old.py': 'D',
      'tests/test_new.py': 'A',
      'bin/tool.sh': 'M',
      'data/with\ttab.txt': 'A',
    });
  });

  it('cuts a commit’s diff into the patch `git diff -- <path>` prints for each file', async () => {
    const changes = (await changedFiles(git, [head])).get(head)!;
    const paths = changes.map((file) => file.path);
    const sections = splitPatch(await git.run(['diff', '--binary', '--no-renames', parent, head]), paths);
    expect(sections).toBeDefined();
    for (const path of paths)
      expect(sections!.get(path)).toBe(
        await git.run(['diff', '--binary', '--no-renames', parent, head, '--', `:(literal)${path}`]),
      );
    expect(sections!.get('assets/logo.png')).toContain('GIT binary patch');
  });

  it('refuses to pair sections with paths that do not match them', async () => {
    const patch = await git.run(['diff', '--binary', '--no-renames', parent, head]);
    expect(splitPatch(patch, ['src/app.py'])).toBeUndefined();
  });

  it('reads files at a commit through one process, as `git show` does', async () => {
    const blobs = new BlobReader(git);
    try {
      expect(await blobs.show(head, 'src/app.py')).toBe(await git.show(head, 'src/app.py'));
      expect(await blobs.show(head, 'docs/naïve guide.md')).toBe('# Guide\n\nMore.\n');
      expect(await blobs.show(head, 'tests/test_old.py')).toBeUndefined();
      expect(await blobs.show(parent, 'tests/test_old.py')).toBe(files['tests/test_old.py']);
      expect((await blobs.read(`${head}:assets/logo.png`))?.length).toBe(13);
      // A directory is no file.
      expect(await blobs.show(head, 'src')).toBeUndefined();
      const many = await Promise.all(
        Array.from({ length: 50 }, () => blobs.show(head, 'data/with\ttab.txt')),
      );
      expect(new Set(many)).toEqual(new Set(['tab\n']));
    } finally {
      blobs.close();
    }
  });
});
