import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSandboxFolder } from '../src/sandbox-folder.js';

let base: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'longhaul-folder-test-'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A sandbox folder an agent left: links to a host folder and to /, and a tree `depth` folders deep. */
async function leftBehind(name: string, host: string, depth: number): Promise<string> {
  const root = join(base, name);
  await mkdir(join(root, 'workspace'), { recursive: true });
  await symlink(host, join(root, 'workspace', 'host'));
  await symlink('/', join(root, 'workspace', 'slash'));
  const deep = `import os\nos.chdir(${JSON.stringify(join(root, 'workspace'))})\nfor _ in range(${depth}):\n    os.mkdir("d"); os.chdir("d")\nopen("leaf", "w").write("x")\n`;
  execFileSync('python3', ['-c', deep]);
  return root;
}

describe('removeSandboxFolder', () => {
  it('removes the folder and nothing a link in it leads to (50 deep)', async () => {
    const host = join(base, 'host-deep');
    await mkdir(host);
    await writeFile(join(host, 'keep.txt'), 'host file');
    const root = await leftBehind('longhaul-deep', host, 50);
    await removeSandboxFolder(root);
    expect(existsSync(root)).toBe(false);
    expect(await readFile(join(host, 'keep.txt'), 'utf8')).toBe('host file');
  });

  it('removes folders wider than a batch of names, files and folders side by side', async () => {
    const host = join(base, 'host-wide');
    await mkdir(host);
    await writeFile(join(host, 'keep.txt'), 'host file');
    const root = await leftBehind('longhaul-wide', host, 3);
    // 2,500 files and 30 folders of 40 files in one folder: names come 1,024 at a time, the
    // folders among them are entered after the files beside them are gone.
    const wide = `import os\nos.chdir(${JSON.stringify(join(root, 'workspace'))})\nos.mkdir("wide")\nfor i in range(2500):\n    open("wide/f%d" % i, "w").write("x")\nfor d in range(30):\n    os.mkdir("wide/d%d" % d)\n    os.symlink("/", "wide/d%d/slash" % d)\n    for i in range(40):\n        open("wide/d%d/g%d" % (d, i), "w").write("y")\n`;
    execFileSync('python3', ['-c', wide]);
    await removeSandboxFolder(root);
    expect(existsSync(root)).toBe(false);
    expect(await readFile(join(host, 'keep.txt'), 'utf8')).toBe('host file');
  });
});
