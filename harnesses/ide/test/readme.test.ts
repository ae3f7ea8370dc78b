import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { argumentTable, replaceArgumentTable } from '../src/tools/argument-table.js';
import { toolNames, upstreamToolNames } from '../src/tools/names.js';
import { allTools } from '../src/tools/registry.js';
import { upstreamTools } from '../src/upstream/tools.js';

const root = join(import.meta.dirname, '../../..');
const read = (path: string) => readFile(join(root, path), 'utf8');

describe("the tools' arguments as the READMEs give them", () => {
  it('the README table is the one the schemas make (run `npm run docs -w @longhaul/harness-ide` when it is not)', async () => {
    const readme = await read('harnesses/ide/README.md');
    const table = argumentTable(Object.values(allTools));
    expect(replaceArgumentTable(readme, table)).toBe(readme);
    // Every tool, every argument: write_file takes file_path, as scripted models must call it.
    for (const name of toolNames) expect(table).toContain(`| \`${name}\``);
    expect(table).toMatch(/\| `write_file` +\| `file_path` +\| string +\| required +\|/);
  });

  it("the README's table of profile upstream is the one its declared schemas make", async () => {
    const readme = await read('harnesses/ide/README.md');
    const table = argumentTable(Object.values(upstreamTools));
    expect(replaceArgumentTable(readme, table, 'upstream tool arguments')).toBe(readme);
    for (const name of upstreamToolNames) expect(table).toContain(`| \`${name}\``);
    expect(table).toMatch(/\| `file_search` +\| `query` +\| string +\| required +\|/);
    expect(table).toMatch(/\| +\| `explanation` +\| string +\| required +\|/);
  });

  it("the gateway README names each ide tool's arguments as the harness takes them", async () => {
    const readme = await read('core/gateway/README.md');
    const named = [...readme.matchAll(/`(\w+) \{([^}]*)\}`/g)].filter(([, tool]) =>
      (toolNames as readonly string[]).includes(tool!),
    );
    expect(named.map(([, tool]) => tool)).toEqual(['write_file', 'delete_file', 'run_terminal_cmd']);
    for (const [, tool, list] of named) {
      const shape = allTools[tool as keyof typeof allTools].input.shape;
      const written = list!.split(',').map((key) => key.trim());
      const required = Object.keys(shape).filter((key) => !shape[key]!.safeParse(undefined).success);
      expect(
        written.filter((key) => !(key in shape)),
        `${tool}: arguments it does not take`,
      ).toEqual([]);
      expect(
        required.filter((key) => !written.includes(key)),
        `${tool}: required arguments left out`,
      ).toEqual([]);
    }
  });
});
