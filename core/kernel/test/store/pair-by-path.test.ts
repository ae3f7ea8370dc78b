import { describe, expect, it } from 'vitest';
import { pairByPath } from '../../src/store/pair-by-path.js';

const entries = (...paths: string[]) => paths.map((path) => ({ path }));

async function* slowly<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) {
    await new Promise((resolve) => setImmediate(resolve));
    yield item;
  }
}

async function pairs(before: { path: string }[], after: { path: string }[]) {
  const out: string[] = [];
  for await (const [a, b] of pairByPath(slowly(before), after))
    out.push(`${a?.path ?? '-'} ${b?.path ?? '-'}`);
  return out;
}

describe('pairByPath', () => {
  it('pairs paths on both sides, and gives those on one side alone, at either end too', async () => {
    // `a.txt` < `a/b` < `a0` in string order: a folder's entries sit between its neighbours.
    expect(await pairs(entries('0', 'a.txt', 'a/b', 'z'), entries('a/b', 'a0', 'zz', 'zzz'))).toEqual([
      '0 -',
      'a.txt -',
      'a/b a/b',
      '- a0',
      'z -',
      '- zz',
      '- zzz',
    ]);
    expect(await pairs([], entries('x'))).toEqual(['- x']);
    expect(await pairs(entries('x'), [])).toEqual(['x -']);
    expect(await pairs([], [])).toEqual([]);
  });

  it('refuses a side that is not sorted by path, naming the paths', async () => {
    await expect(pairs(entries('b', 'a'), entries('a'))).rejects.toThrow(
      /before are not sorted by path: "a" after "b"/,
    );
    await expect(pairs(entries('a'), entries('a', 'a'))).rejects.toThrow(/after are not sorted/);
  });
});
