import { defaultWorkspaceExcludes, excludeMatcher, excludesOption } from '@longhaul/core';
import { describe, expect, it } from 'vitest';

describe('excludeMatcher', () => {
  const excluded = excludeMatcher(['node_modules', '*.pyc', 'build/out', 'data/*.csv']);

  it('matches a name in any directory, and everything below it', () => {
    expect(excluded('node_modules')).toBe(true);
    expect(excluded('web/node_modules/react/index.js')).toBe(true);
    expect(excluded('node_modules_backup/x')).toBe(false);
  });

  it('matches a glob within one segment', () => {
    expect(excluded('pkg/m.pyc')).toBe(true);
    expect(excluded('pkg/m.pyc.txt')).toBe(false);
  });

  it('anchors patterns with a slash at the workspace root, covering what lies below', () => {
    expect(excluded('build/out')).toBe(true);
    expect(excluded('build/out/a.o')).toBe(true);
    expect(excluded('src/build/out')).toBe(false);
    expect(excluded('data/a.csv')).toBe(true);
    expect(excluded('data/sub/a.csv')).toBe(false);
    expect(excluded('data/a.json')).toBe(false);
    expect(excludeMatcher(['/build/out/'])('build/out/a.o')).toBe(true);
  });

  it('matches dotfiles, and takes a leading ! and a + as part of the name', () => {
    expect(excludeMatcher(['*.env'])('conf/.env')).toBe(true);
    expect(excludeMatcher(['!keep'])('x/!keep')).toBe(true);
    expect(excludeMatcher(['!keep'])('x/other')).toBe(false);
    expect(excludeMatcher(['a+b'])('x/a+b')).toBe(true);
    expect(excludeMatcher(['a+b'])('x/aab')).toBe(false);
  });

  it('matches nothing without patterns', () => {
    expect(excludeMatcher([])('anything')).toBe(false);
  });

  it('leaves installed packages, caches and git out by default', () => {
    const byDefault = excludeMatcher(defaultWorkspaceExcludes);
    for (const path of ['.venv/bin/python', 'web/node_modules/x.js', 'pkg/__pycache__/m.pyc', '.git/HEAD']) {
      expect(byDefault(path), path).toBe(true);
    }
    expect(byDefault('src/main.py')).toBe(false);
    expect(byDefault('.gitignore')).toBe(false);
  });

  it('is the excludes option of environments: the defaults when left out, no empty pattern', () => {
    expect(excludesOption.parse(undefined)).toEqual(['node_modules', '.venv', '__pycache__', '.git']);
    expect(excludesOption.parse(['*.log'])).toEqual(['*.log']);
    expect(excludesOption.safeParse(['ok', '']).error?.issues[0]?.path).toEqual([1]);
  });
});
