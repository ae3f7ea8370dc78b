import { ClassifiedError } from '../contracts/status.js';

/**
 * The order of a manifest, of `SnapshotStore.scan` and of what `pairByPath` pairs: JS string
 * comparison, i.e. by UTF-16 code units (not code points).
 */
export const byPath = (a: { path: string }, b: { path: string }) =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : 0;

/**
 * Two lists of entries sorted by path (JS string order, as `SnapshotStore.scan` gives them) walked
 * together, one pair at a time: `[before, after]` for a path on both sides, `[before, undefined]`
 * or `[undefined, after]` for a path on one only. What compares two snapshots holds a pair at a
 * time, never either side whole. A side out of order is refused: a merge of it would pair wrongly.
 */
export async function* pairByPath<A extends { path: string }, B extends { path: string }>(
  before: Iterable<A> | AsyncIterable<A>,
  after: Iterable<B> | AsyncIterable<B>,
): AsyncGenerator<[A, B] | [A, undefined] | [undefined, B]> {
  const left = sorted(before, 'before');
  const right = sorted(after, 'after');
  try {
    let a = await left.next();
    let b = await right.next();
    while (!a.done || !b.done) {
      if (b.done || (!a.done && a.value.path < b.value.path)) {
        yield [a.value as A, undefined];
        a = await left.next();
      } else if (a.done || b.value.path < a.value.path) {
        yield [undefined, b.value];
        b = await right.next();
      } else {
        yield [a.value, b.value];
        a = await left.next();
        b = await right.next();
      }
    }
  } finally {
    await left.return?.(undefined);
    await right.return?.(undefined);
  }
}

/** The entries of `side` as they come, each checked to follow the one before it. */
async function* sorted<T extends { path: string }>(
  side: Iterable<T> | AsyncIterable<T>,
  name: string,
): AsyncGenerator<T> {
  let last: string | undefined;
  for await (const entry of side) {
    if (last !== undefined && !(last < entry.path))
      throw new ClassifiedError(
        'internal',
        `entries ${name} are not sorted by path: "${entry.path}" after "${last}"`,
      );
    last = entry.path;
    yield entry;
  }
}
