import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, longhaul } from './cli-build.js';

// A version manager's shim first on PATH (pyenv's, here one that sees none of Debian's packages):
// the hidden tests run with the interpreter the experiment names, so that one is asked whether it
// has pytest and pytest-timeout, not the python3 that comes first on PATH.
const fixtures = join(import.meta.dirname, 'fixtures/fidelity');
const debianPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
let work: string;
let shims: string;

beforeAll(async () => {
  await build();
  work = await mkdtemp(join(tmpdir(), 'longhaul-scbench-interpreter-'));
  shims = join(work, 'shims');
  await mkdir(shims);
  await writeFile(join(shims, 'python3'), '#!/bin/sh\nexec /usr/bin/python3 -I -S "$@"\n');
  await chmod(join(shims, 'python3'), 0o755);
}, 620_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

async function validate(python: string): Promise<{ code: number; output: string }> {
  const file = join(work, `shout-${python.replaceAll('/', '_')}.yaml`);
  await writeFile(
    file,
    [
      'name: shim',
      `source: { id: scbench, options: { path: ${fixtures}, problems: [shout], python: ${python} } }`,
      'harness: oracle',
      'environment: local',
      'script: checkpoints',
      'scorers: [tests]',
      '',
    ].join('\n'),
  );
  return longhaul(['validate', file], { ...process.env, PATH: `${shims}:${debianPath}` });
}

describe('source scbench: the interpreter that runs the tests is the one asked for their packages', () => {
  it('accepts a problem when the named interpreter has pytest-timeout, whatever python3 comes first on PATH', async () => {
    const { code, output } = await validate('/usr/bin/python3');
    expect(output).not.toContain('pytest-timeout');
    expect(code).toBe(0);
    expect(output).toContain('valid: 1 task');
  }, 120_000);

  it('refuses it, naming the interpreter, when the named one lacks them', async () => {
    const { code, output } = await validate(join(shims, 'python3'));
    expect(code).toBe(2);
    expect(output).toContain(`missing Python packages in ${join(shims, 'python3')}: pytest, pytest-timeout`);
  }, 120_000);
});
