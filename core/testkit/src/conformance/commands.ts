import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandDefinition } from '@longhaul/core';
import { expect } from 'vitest';
import { runCommandCapturing } from '../fakes/command.js';
import { type Check, describeChecks } from './checks.js';

export interface CommandsContext {
  /** The package folder (its package.json declares the commands). */
  packageDir: string;
  /** What its "./commands" module default-exports. */
  definitions: readonly CommandDefinition[];
}

const described = (list: readonly { name: string; description: string }[]) =>
  list.map(({ name, description }) => ({ name, description })).sort((a, b) => a.name.localeCompare(b.name));

export const commandChecks: Check<CommandsContext>[] = [
  {
    name: 'declares in package.json exactly the commands it exports, with the same descriptions',
    async run({ packageDir, definitions }) {
      const pkg = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as {
        longhaul?: { commands?: { name: string; description: string }[] };
      };
      expect(described(definitions)).toEqual(described(pkg.longhaul?.commands ?? []));
    },
  },
  {
    name: "answers '<name> --help' with its usage and exit code 0",
    async run({ definitions }) {
      for (const definition of definitions) {
        const result = await runCommandCapturing(definitions, [definition.name, '--help']);
        expect(result.stderr, definition.name).toBe('');
        expect(result.stdout, definition.name).toContain(`Usage: longhaul ${definition.name}`);
        expect(result.code, definition.name).toBe(0);
      }
    },
  },
];

/**
 * The conformance suite of a package that adds CLI commands: its package.json declares exactly
 * the commands its "./commands" module default-exports (by name and description, since
 * `longhaul --help` lists them from the manifest alone), and each answers `--help` with its usage.
 */
export function describeCommandsConformance(
  packageDir: string,
  definitions: CommandDefinition | readonly CommandDefinition[],
): void {
  describeChecks('command conformance', commandChecks, () => ({
    packageDir,
    definitions: [definitions].flat(),
  }));
}
