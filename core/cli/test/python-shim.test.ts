import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pythonShimWarning } from '../src/python-shim.js';

const dirs: string[] = [];
afterEach(() => Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true }))));

async function python(under: string): Promise<string> {
  await mkdir(under, { recursive: true });
  await writeFile(join(under, 'python3'), '#!/bin/sh\n');
  await chmod(join(under, 'python3'), 0o755);
  return under;
}

describe('the python3 shim warning', () => {
  it("warns when the first python3 on PATH is a version manager's shim, not when the interpreter comes first", async () => {
    const root = await mkdtemp(join(tmpdir(), 'longhaul-shim-'));
    dirs.push(root);
    const shims = await python(join(root, '.pyenv', 'shims'));
    const bin = await python(join(root, 'usr', 'bin'));
    const empty = join(root, 'nothing');
    const warning = await pythonShimWarning([empty, shims, bin].join(':'));
    expect(warning).toContain(`python3 on PATH is a version manager's shim (${join(shims, 'python3')})`);
    expect(warning).toContain('PATH=/usr/bin:$PATH');
    expect(await pythonShimWarning([bin, shims].join(':'))).toBeUndefined();
    expect(await pythonShimWarning(empty)).toBeUndefined();
  });
});
