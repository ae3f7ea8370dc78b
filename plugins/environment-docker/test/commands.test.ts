import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeCommandsConformance, runCommandCapturing } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import commands from '../src/commands/index.js';
import { baseImageRef } from '../src/index.js';
import { skipWithoutDocker } from './docker-ready.js';

describeCommandsConformance(fileURLToPath(new URL('..', import.meta.url)), commands);

describe('longhaul images', () => {
  it('ref prints the base image this installation uses', async () => {
    expect(await runCommandCapturing(commands, ['images', 'ref'])).toEqual({
      code: 0,
      stdout: `${baseImageRef()}\n`,
      stderr: '',
    });
  });

  it('an unknown subcommand is a usage error', async () => {
    const result = await runCommandCapturing(commands, ['images', 'bild']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("unknown command 'bild'");
  });
});

if (!skipWithoutDocker()) {
  describe('longhaul images build and prune, against the daemon', () => {
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
  });
}
