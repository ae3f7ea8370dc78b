/**
 * Runs `work` over `items`, `limit` at a time. Items are taken as they are needed, so a stream (a
 * snapshot's scan) is never held whole. After a failure no further item is taken, and the first
 * failure is thrown once the work in flight has ended: nothing runs on after the pool (a restore
 * closes the folder handles its writes use).
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
    try {
      while (!failed) {
        const next = await iterator.next();
        if (next.done) return;
        await work(next.value);
      }
    } catch (error) {
      failed = true;
      throw error;
    }
  };
  const ended = await Promise.allSettled(Array.from({ length: limit }, worker));
  const failure = ended.find((result) => result.status === 'rejected');
  if (failure === undefined) return;
  try {
    await iterator.return?.();
  } catch {
    // The failure above is the one to report.
  }
  throw failure.reason;
}
