import { once } from 'node:events';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runIdOf } from '@longhaul/core';
import { describeCommandsConformance, runCommandCapturing } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import { describe, expect, it } from 'vitest';
import commands from '../src/commands/index.js';
import { baseImageRef, pipLayerRef, scbenchRecipe } from '../src/index.js';
import { openAndHang } from './helpers.js';

const dockerReady = prerequisites.docker([baseImageRef()]);

describeCommandsConformance(fileURLToPath(new URL('..', import.meta.url)), commands);

describe('longhaul images', () => {
  it('ref prints the base image this installation uses', async () => {
    expect(await runCommandCapturing(commands, ['images', 'ref'])).toEqual({
      code: 0,
      stdout: `${baseImageRef()}\n`,
      stderr: '',
    });
  });

  it('ref --profile prints the profile image, and with --build-network its pip layer', async () => {
    const ref = await runCommandCapturing(commands, ['images', 'ref', '--profile', 'scbench']);
    expect(ref.stdout).toBe(`${baseImageRef(scbenchRecipe)}\n`);
    const pip = await runCommandCapturing(commands, [
      'images',
      'ref',
      '--profile',
      'scbench',
      '--build-network',
    ]);
    expect(pip.stdout).toBe(`${pipLayerRef()}\n`);
    const unknown = await runCommandCapturing(commands, ['images', 'ref', '--profile', 'swebench']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no image profile swebench (there are: scbench)');
  });

  it('an unknown subcommand is a usage error', async () => {
    const result = await runCommandCapturing(commands, ['images', 'bild']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("unknown command 'bild'");
  });
});

describe.skipIf(!dockerReady)('longhaul images build and prune, against the daemon', () => {
  it('build leaves a present image as it is and prints its reference', async () => {
    const result = await runCommandCapturing(commands, ['images', 'build']);
    expect(result.stdout).toBe(`${baseImageRef()}\n`);
    expect(result.stderr).toMatch(/^already present: sha256:/m);
    expect(result.code).toBe(0);
  });

  it('prune of a run that left nothing removes nothing', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'prune-command-'));
    const result = await runCommandCapturing(commands, ['prune', '--run', `none-${process.pid}`], {
      cwd,
      installDir: null,
    });
    expect(result).toEqual({ code: 0, stdout: 'docker: removed nothing\n', stderr: '' });
  });

  it('prune --run takes a run directory for the run id', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'prune-command-'));
    const runDir = join(cwd, 'runs', 'baseline');
    await mkdir(runDir, { recursive: true });
    const child = await openAndHang(runIdOf(runDir));
    child.kill('SIGKILL');
    await once(child, 'exit');
    const result = await runCommandCapturing(commands, ['prune', '--run', join('runs', 'baseline')], {
      cwd,
      installDir: null,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^docker: removed \d+$/m);
    expect(result.stdout.match(/^ {2}container /gm)).toHaveLength(2);
    expect(result.stdout).toContain(`network longhaul-${runIdOf(runDir)}-none`);
  });
});
