import type { TrialRecord, TrialSpec } from '../contracts/index.js';

/** Runs one trial spec to its record; where it runs is the executor's business. */
export type TrialWorker = (spec: TrialSpec) => Promise<TrialRecord>;

/**
 * Hands trial specs to workers. Specs are plain JSON, so an executor may ship them elsewhere;
 * results come back as records. Trials not started when `stop` aborts are left out of the result.
 */
export interface Executor {
  execute(specs: TrialSpec[], worker: TrialWorker, stop: AbortSignal): Promise<Map<string, TrialRecord>>;
}

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
