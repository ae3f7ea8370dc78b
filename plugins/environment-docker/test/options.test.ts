import { describe, expect, it } from 'vitest';
import { dockerOptions, parseSize } from '../src/index.js';

describe('docker options', () => {
  it('parses sizes as Docker counts them', () => {
    expect(parseSize('512m')).toBe(512 * 1024 * 1024);
    expect(parseSize('4g')).toBe(4 * 1024 ** 3);
    expect(parseSize('1.5G')).toBe(1.5 * 1024 ** 3);
    expect(parseSize('1000')).toBe(1000);
    expect(() => parseSize('lots')).toThrow('"lots" is not a size');
  });

  it('refuses bad options with the key at fault', () => {
    const bad = dockerOptions.safeParse({ memory: 'plenty', mounts: ['/host:relative/target'], pids: 2 });
    expect(bad.success).toBe(false);
    const keys = bad.error?.issues.map((i) => i.path.join('.'));
    expect(keys).toEqual(expect.arrayContaining(['memory', 'mounts.0', 'pids']));
    expect(dockerOptions.safeParse({ netwrok: 'open' }).success).toBe(false);
  });
});
