import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import {
  type AnyCase,
  CaseFileCache,
  ConfigError,
  caseFormatModules,
  formatIssue,
  longhaulCacheDir,
  readCase,
} from '@longhaul/core';
import { describe, expect, it } from 'vitest';

const temp = (name: string) => mkdtemp(join(tmpdir(), `longhaul-case-cache-${name}-`));

async function caseFile(text: string): Promise<string> {
  const file = join(await temp('case'), 'case.yaml');
  await writeFile(file, text);
  return file;
}

const caseText = (word: string) => `argv: [${word}]\nexpect: { stdout: { text: "${word}\\n" } }\n`;

/** The one entry file in a cache directory. */
async function entryFile(root: string): Promise<string> {
  const names = (await readdir(join(root, 'cases'))).filter((name) => !name.startsWith('.'));
  expect(names).toHaveLength(1);
  return join(root, 'cases', names[0]!);
}

describe('readCase through a CaseFileCache', () => {
  it('reads a case file again when its text changes, and still locates the errors of a bad edit', async () => {
    const root = await temp('changed');
    const cache = new CaseFileCache<AnyCase>(root);
    const file = await caseFile(caseText('first'));
    expect((await readCase(file, { cache })).spec).toMatchObject({ argv: ['first'] });
    expect((await readCase(file, { cache })).spec).toMatchObject({ argv: ['first'] });

    await writeFile(file, caseText('second'));
    expect((await readCase(file, { cache })).spec).toMatchObject({ argv: ['second'] });
    // Another process (a cache with the same directory) sees the new text too.
    expect((await readCase(file, { cache: new CaseFileCache<AnyCase>(root) })).spec).toMatchObject({
      argv: ['second'],
    });

    await writeFile(file, 'argv: [third]\nexpect: { stdout: { text: x }, colour: red }\n');
    const error = await readCase(file, { cache }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map(formatIssue)).toEqual([
      `${file}:2:32: expect.colour: unknown key 'colour'`,
    ]);
  });

  it('serves a case another process cached from disk, and hands out copies', async () => {
    const root = await temp('shared');
    const file = await caseFile(caseText('shared'));
    const first = await readCase(file, { cache: new CaseFileCache<AnyCase>(root) });

    const other = new CaseFileCache<AnyCase>(root);
    const key = other.key(await readFile(file, 'utf8'));
    expect(other.get(key)).toEqual(first);
    // What the cache serves is what it stored, not a re-read of the file: an entry stored under
    // the key is what the next process gets.
    await other.set(key, { kind: 'cli', spec: { argv: ['stored'], expect: { exitCode: 0 } } });
    expect((await readCase(file, { cache: new CaseFileCache<AnyCase>(root) })).spec).toMatchObject({
      argv: ['stored'],
    });

    const copy = other.get(key)!;
    (copy.spec as { argv: string[] }).argv.push('changed by a caller');
    expect(other.get(key)!.spec).toMatchObject({ argv: ['stored'] });
  });

  it('ignores a corrupt entry, reads the file and writes the entry again', async () => {
    const root = await temp('corrupt');
    const file = await caseFile(caseText('whole'));
    const text = await readFile(file, 'utf8');
    await readCase(file, { cache: new CaseFileCache<AnyCase>(root) });
    const entry = await entryFile(root);
    const good = await readFile(entry);
    // Another case's entry, whole, under this case's key: its checksum holds but its key does not.
    const otherRoot = await temp('corrupt-other');
    await readCase(await caseFile(caseText('other')), { cache: new CaseFileCache<AnyCase>(otherRoot) });
    const otherEntry = await readFile(await entryFile(otherRoot));

    const flipped = Buffer.from(good);
    flipped[flipped.length - 3]! ^= 0xff;
    for (const bad of [
      Buffer.from('not an entry at all'),
      good.subarray(0, good.length >> 1),
      Buffer.alloc(0),
      flipped,
      otherEntry,
    ]) {
      await writeFile(entry, bad);
      const cache = new CaseFileCache<AnyCase>(root);
      expect(cache.get(cache.key(text))).toBeUndefined();
      expect((await readCase(file, { cache })).spec).toMatchObject({ argv: ['whole'] });
      expect(await readFile(entry)).toEqual(good);
    }
  });

  it('two writers of one entry at once leave one whole entry and no temp files', async () => {
    const root = await temp('writers');
    const writers = [new CaseFileCache<string>(root), new CaseFileCache<string>(root)];
    const key = writers[0]!.key('the same case text');
    // Large values, so that the writes overlap in the file system's thread pool.
    const values = ['a', 'b'].map((letter) => letter.repeat(1024 * 1024));
    const seen = new Set<string | undefined>();
    let writing = true;
    const reading = (async () => {
      while (writing) {
        seen.add(new CaseFileCache<string>(root).get(key)?.slice(0, 1));
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await Promise.all(
      Array.from({ length: 10 }, (_, index) => writers[index % 2]!.set(key, values[index % 2]!)),
    );
    writing = false;
    await reading;
    const value = new CaseFileCache<string>(root).get(key);
    expect(values).toContain(value);
    // A reader during the writes saw nothing yet or a whole value, never a part.
    for (const prefix of seen) expect([undefined, 'a', 'b']).toContain(prefix);
    expect(await readdir(join(root, 'cases'))).toEqual([key]);
  });

  it('still reads cases when the cache directory cannot be written', async () => {
    const blocked = join(await temp('blocked'), 'a-file');
    await writeFile(blocked, 'not a directory');
    const file = await caseFile(caseText('uncached'));
    const cache = new CaseFileCache<AnyCase>(blocked);
    expect((await readCase(file, { cache })).spec).toMatchObject({ argv: ['uncached'] });
    expect((await readCase(file, { cache: new CaseFileCache<AnyCase>(blocked) })).spec).toMatchObject({
      argv: ['uncached'],
    });
  });
});

describe('longhaulCacheDir', () => {
  it('is LONGHAUL_CACHE_DIR, else under XDG_CACHE_HOME, else under ~/.cache; off turns it off', () => {
    expect(longhaulCacheDir({ LONGHAUL_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x' })).toBe('/c');
    expect(longhaulCacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/longhaul');
    expect(longhaulCacheDir({})).toMatch(/\/\.cache\/longhaul$/);
    expect(longhaulCacheDir({ LONGHAUL_CACHE_DIR: 'off' })).toBeUndefined();
  });
});

describe('caseFormatModules', () => {
  it('names every kernel module readCase runs, so that a change to any gives new keys', () => {
    const src = join(dirname(dirname(dirname(import.meta.filename))), 'src');
    const found = new Set<string>();
    const visit = (module: string) => {
      if (found.has(module)) return;
      found.add(module);
      const text = readFileSync(join(src, `${module}.ts`), 'utf8');
      for (const [, typeOnly, specifier] of text.matchAll(
        /^(?:import|export)\s+(type\s+)?[^;]*?from\s+'(\.[^']+)'/gms,
      )) {
        if (!typeOnly) visit(normalize(join(dirname(module), specifier!.replace(/\.js$/, ''))));
      }
    };
    visit('cases/read-case');
    expect([...found].sort()).toEqual([...caseFormatModules].sort());
    expect(readdirSync(join(src, 'cases'))).toContain('read-case.ts');
  });
});
