import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  baseRecipe,
  chooseImage,
  declaredContents,
  scbenchDebianPackages,
  scbenchPackages,
  scbenchPipLayer,
  scbenchRecipe,
} from '../src/index.js';
import { normalName } from '../src/profiles.js';

type Needs = { pythonPackages?: string[]; commands?: string[] };
const upstream = parse(
  readFileSync(join(import.meta.dirname, 'fixtures/scbench-upstream-needs.yaml'), 'utf8'),
) as Record<string, Needs>;
const table = scbenchPackages as unknown as Record<
  'pythonPackages' | 'commands',
  Record<string, string | null>
>;

describe('the scbench image is derived from what upstream’s problems need', () => {
  it('has every import and program upstream’s problems use in its table', () => {
    for (const [problem, needs] of Object.entries(upstream)) {
      for (const name of needs.pythonPackages ?? [])
        expect(Object.keys(table.pythonPackages).map(normalName), `${problem}: ${name}`).toContain(
          normalName(name),
        );
      // node and npm are the host's own, in every image.
      for (const name of needs.commands ?? [])
        expect(
          [...Object.keys(table.commands), ...declaredContents.base.commands],
          `${problem}: ${name}`,
        ).toContain(name);
    }
  });

  it('installs every Debian package of the table, and leaves to the pip layer exactly what Debian lacks', () => {
    const installed = [...baseRecipe.packages, ...(scbenchRecipe.aptPackages ?? [])];
    expect(installed).toEqual(expect.arrayContaining(scbenchDebianPackages()));
    for (const name of ['python3-typer', 'python3-scipy', 'python3-toml', 'g++'])
      expect(installed).toContain(name);
    const lacking = (kind: 'pythonPackages' | 'commands') =>
      Object.entries(table[kind])
        .filter(([, debian]) => debian === null)
        .map(([name]) => name)
        .sort();
    expect(lacking('pythonPackages')).toEqual(
      Object.keys(scbenchPipLayer.packages)
        .filter((name) => name !== 'uv')
        .sort(),
    );
    expect(lacking('commands')).toEqual([...scbenchPipLayer.commands].sort());
  });

  it('runs each upstream problem Debian can serve in the scbench image, and one Debian cannot in the pip layer, naming what it lacks', () => {
    const every = upstream['every problem']!;
    for (const [problem, needs] of Object.entries(upstream)) {
      const requires = {
        python: '3.12',
        pythonPackages: [...(every.pythonPackages ?? []), ...(needs.pythonPackages ?? [])],
        commands: [...(every.commands ?? []), ...(needs.commands ?? [])],
      };
      const missing = [...requires.pythonPackages, ...requires.commands].filter(
        (name) => table.pythonPackages[name] === null || table.commands[name] === null,
      );
      const choice = chooseImage(requires, baseRecipe);
      if (missing.length === 0)
        expect(choice.kind === 'profile' || choice.kind === 'base', problem).toBe(true);
      else expect(choice, problem).toMatchObject({ kind: 'pip', needs: missing });
    }
    expect(declaredContents.scbench.pythonPackages).toEqual(
      expect.arrayContaining(['typer', 'scipy', 'toml']),
    );
  });
});
