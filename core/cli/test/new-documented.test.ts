import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './install-copy.js';

const contracts = join(repoRoot, 'core', 'kernel', 'src', 'contracts');

/** The names a file imports from `module`, `type` markers dropped. */
function importedNames(text: string, module: string): string[] {
  const lists = [...text.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'([^']+)'/g)];
  return lists
    .filter((match) => match[2] === module)
    .flatMap((match) => match[1]!.split(','))
    .map((name) => name.trim().replace(/^type\s+/, ''))
    .filter((name) => name !== '');
}

/** The kernel README's part on what a harness author needs, up to the next section. */
async function harnessSection(): Promise<string> {
  const readme = await readFile(join(repoRoot, 'core', 'kernel', 'README.md'), 'utf8');
  const start = readme.indexOf('### The types a harness author needs');
  expect(start, 'core/kernel/README.md has a section "The types a harness author needs"').toBeGreaterThan(0);
  return readme.slice(start, readme.indexOf('\n## ', start));
}

// A harness author reads the kernel README and the TSDoc, never the kernel's code: what the harness
// `longhaul new` writes uses must be there.
describe('what the harness template uses is documented', () => {
  it('every name it imports from @longhaul/core is in the README section for harness authors', async () => {
    const section = await harnessSection();
    const dir = join(repoRoot, 'core', 'cli', 'templates', 'harness', 'src');
    const names = new Set<string>();
    for (const file of await readdir(dir)) {
      for (const name of importedNames(await readFile(join(dir, file), 'utf8'), '@longhaul/core'))
        names.add(name);
    }
    expect(names.size).toBeGreaterThan(10);
    const missing = [...names].filter((name) => !new RegExp(`\\b${name}\\b`).test(section));
    expect(missing).toEqual([]);
  });

  it('every export of the contracts a harness uses has TSDoc', async () => {
    const undocumented: string[] = [];
    for (const file of ['harness.ts', 'trajectory.ts', 'usage.ts', 'sandbox.ts', 'status.ts']) {
      const lines = (await readFile(join(contracts, file), 'utf8')).split('\n');
      lines.forEach((line, index) => {
        if (!line.startsWith('export ')) return;
        const before =
          lines
            .slice(0, index)
            .filter((l) => l.trim() !== '')
            .at(-1) ?? '';
        if (!before.trim().endsWith('*/')) undocumented.push(`${file}:${index + 1}: ${line}`);
      });
    }
    expect(undocumented).toEqual([]);
  });

  it('the check finds names in import lists', () => {
    expect(
      importedNames(
        "import {\n  classify,\n  type Sandbox,\n} from '@longhaul/core';\nimport { z } from 'zod';",
        '@longhaul/core',
      ),
    ).toEqual(['classify', 'Sandbox']);
  });
});
