import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandDefinition } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { runCommandCapturing } from '../fakes/command.js';

/**
 * The conformance suite of a package that adds CLI commands: its package.json declares exactly
 * the commands its "./commands" module default-exports (by name and description, since
 * `longhaul --help` lists them from the manifest alone), and each answers `--help` with its usage.
 */
export function describeCommandsConformance(
  packageDir: string,
  definitions: CommandDefinition | readonly CommandDefinition[],
): void {
  const exported = [definitions].flat();
  describe('command conformance', () => {
    it('declares in package.json exactly the commands it exports', async () => {
      const pkg = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as {
        longhaul?: { commands?: { name: string; description: string }[] };
      };
      const declared = pkg.longhaul?.commands ?? [];
      const described = (list: readonly { name: string; description: string }[]) =>
        list
          .map(({ name, description }) => ({ name, description }))
          .sort((a, b) => a.name.localeCompare(b.name));
      expect(described(exported)).toEqual(described(declared));
    });

    for (const definition of exported) {
      it(`'${definition.name} --help' prints its usage and exits 0`, async () => {
        const result = await runCommandCapturing(exported, [definition.name, '--help']);
        expect(result.stderr).toBe('');
        expect(result.stdout).toContain(`Usage: longhaul ${definition.name}`);
        expect(result.code).toBe(0);
      });
    }
  });
}
