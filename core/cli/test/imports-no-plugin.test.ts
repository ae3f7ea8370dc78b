import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './install-copy.js';

const cliDir = join(repoRoot, 'core', 'cli');

/** Whether the installed package `name` is a plugin package: its manifest has a "longhaul" field. */
async function isPlugin(name: string): Promise<boolean> {
  const text = await readFile(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8').catch(() => '{}');
  return (JSON.parse(text) as { longhaul?: unknown }).longhaul !== undefined;
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** Every module specifier a TypeScript file imports or re-exports, statically or dynamically. */
function specifiers(text: string): string[] {
  const found = [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"]([^'"]+)['"]/g)].map((match) => match[1]!);
  return found.map((specifier) =>
    specifier
      .split('/')
      .slice(0, specifier.startsWith('@') ? 2 : 1)
      .join('/'),
  );
}

describe('the CLI imports no plugin', () => {
  it('depends on no plugin package', async () => {
    const pkg = JSON.parse(await readFile(join(cliDir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const plugins = [];
    for (const name of Object.keys(pkg.dependencies)) if (await isPlugin(name)) plugins.push(name);
    expect(plugins).toEqual([]);
  });

  it('no source file imports a plugin package or a file inside one', async () => {
    const offending: string[] = [];
    for (const file of await sourceFiles(join(cliDir, 'src'))) {
      const text = await readFile(file, 'utf8');
      for (const specifier of specifiers(text)) {
        if (
          specifier.startsWith('.')
            ? /\/(plugins|harnesses)\//.test(join(file, specifier))
            : await isPlugin(specifier)
        )
          offending.push(`${file.slice(cliDir.length + 1)}: ${specifier}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('the check sees a plugin import when there is one', async () => {
    expect(
      specifiers("import { x } from '@longhaul/environment-docker/sub';\nawait import('dockerode');"),
    ).toEqual(['@longhaul/environment-docker', 'dockerode']);
    expect(await isPlugin('@longhaul/environment-docker')).toBe(true);
    expect(await isPlugin('@longhaul/core')).toBe(false);
  });
});
