import { describe, expect, it } from 'vitest';
import { excludeMatcher } from '../src/excludes.js';

describe('excludeMatcher', () => {
  const excluded = excludeMatcher(['node_modules', '*.pyc', 'build/out', 'data/*.csv']);

  it('matches a name in any directory', () => {
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
  });

  it('treats regex characters in names literally', () => {
    expect(excludeMatcher(['a+b'])('x/a+b')).toBe(true);
    expect(excludeMatcher(['a+b'])('x/aab')).toBe(false);
  });
});
