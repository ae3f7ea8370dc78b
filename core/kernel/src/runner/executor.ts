import type { Executor, TrialRecord, TrialSpec, TrialWorker } from '../contracts/index.js';

/** A bounded in-process pool: at most `concurrency` trials at once, in spec order. */
export class LocalExecutor implements Executor {
  readonly concurrency: number;

  constructor(concurrency = 1) {
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new Error(`concurrency must be a positive integer, got ${concurrency}`);
    }
    this.concurrency = concurrency;
  }

  async execute(
    specs: TrialSpec[],
    worker: TrialWorker,
    stop: AbortSignal,
  ): Promise<Map<string, TrialRecord>> {
    const results = new Map<string, TrialRecord>();
    let next = 0;
    const lane = async (): Promise<void> => {
      while (!stop.aborted && next < specs.length) {
        const spec = specs[next++]!;
        results.set(spec.id, await worker(spec));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, specs.length) }, lane));
    return results;
  }
}
