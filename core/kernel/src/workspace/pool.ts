/**
 * Runs `work` over `items`, `limit` at a time. Items are taken as they are needed, so a stream (a
 * snapshot's scan) is never held whole; after a failure no further item is taken.
 */
export async function pool<T>(
  items: Iterable<T> | AsyncIterable<T>,
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  const iterator: Iterator<T> | AsyncIterator<T> =
    Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  let failed = false;
  const worker = async () => {
    while (!failed) {
      const next = await iterator.next();
      if (next.done) return;
      try {
        await work(next.value);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: limit }, worker));
  } finally {
    if (failed) await iterator.return?.();
  }
}
