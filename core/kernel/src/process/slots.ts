import { availableCores } from './cores.js';

/** Gives one slot back; calling it again does nothing. */
export type Release = () => void;

/**
 * A counting semaphore: at most `size` holders at once, waiters served in arrival order. The
 * runner makes one per run (`tokens.CaseSlots`) so that trials running side by side share one
 * budget of processes instead of each starting its own.
 */
export class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`slots must be a positive integer, got ${size}`);
    this.free = size;
  }

  /** Slots not held now. */
  get available(): number {
    return this.free;
  }

  /** A slot now, or undefined when all are held. */
  tryAcquire(): Release | undefined {
    if (this.free === 0 || this.waiting.length > 0) return undefined;
    this.free--;
    return this.releaser();
  }

  /** A slot, once one is free; rejects with the signal's reason if it aborts first. */
  acquire(signal?: AbortSignal): Promise<Release> {
    signal?.throwIfAborted();
    const now = this.tryAcquire();
    if (now) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.releaser());
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(grant);
        if (at !== -1) this.waiting.splice(at, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter.
      if (next) next();
      else this.free++;
    };
  }
}

/** The run's slots for hidden-test cases: `caseWorkers` of the experiment, or the cores available. */
export function caseSlots(caseWorkers: number | undefined): Slots {
  return new Slots(caseWorkers ?? availableCores());
}
