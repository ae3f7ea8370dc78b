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
  // With `contained`, Node's `rm` does the work; without, directory handles.
  for (const [contained, depth] of [
    [true, 50],
    [false, 50],
  ] as const) {
    it(`removes the folder and nothing a link in it leads to (contained: ${contained}, ${depth} deep)`, async () => {
      const host = join(base, `host-${contained}`);
      await mkdir(host);
      await writeFile(join(host, 'keep.txt'), 'host file');
      const root = await leftBehind(`longhaul-${contained}`, host, depth);
      await removeSandboxFolder(root, contained);
      expect(existsSync(root)).toBe(false);
      expect(await readFile(join(host, 'keep.txt'), 'utf8')).toBe('host file');
    });
  }
});
