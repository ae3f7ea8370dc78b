import { availableCores } from './cores.js';

/** Gives one slot back; calling it again does nothing. */
export type Release = () => void;

interface Waiter {
  rank: number;
  grant(): void;
}

/** The state every view of one budget shares. */
class Pool {
  /** Waiters, best rank first, in arrival order within a rank. */
  readonly waiting: Waiter[] = [];
  /** The rank the next `forTrial` view gets. */
  nextRank = 1;

  constructor(public free: number) {}

  enqueue(waiter: Waiter): void {
    const at = this.waiting.findIndex((other) => other.rank > waiter.rank);
    if (at === -1) this.waiting.push(waiter);
    else this.waiting.splice(at, 0, waiter);
  }
}

/**
 * A counting semaphore: at most `size` holders at once. The runner makes one per run
 * (`tokens.CaseSlots`): the run's budget of CPU work, so that trials running side by side share
 * the cores instead of each taking its own. Cases hold slots while they run, and the runner holds
 * one while it snapshots and diffs a trial's workspace.
 *
 * Each trial sees the budget through a view of its own (`forTrial`), ranked by when the trial
 * started: a released slot goes to the waiter of the earliest trial (arrival order among equal
 * ranks), so a trial that is ahead finishes first instead of every trial advancing together, and
 * more trials at once only fill the slots the leading trial leaves idle.
 */
export class Slots {
  private pool: Pool;

  /**
   * @param rank the priority of this view's waiters: lower is served first. A plain budget has 0,
   * ahead of every trial's view.
   */
  constructor(
    readonly size: number,
    readonly rank = 0,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`slots must be a positive integer, got ${size}`);
    this.pool = new Pool(size);
  }

  /** A view of this budget for the next trial to start: its rank is after every earlier trial's. */
  forTrial(): Slots {
    const view = new Slots(this.size, this.pool.nextRank++);
    view.pool = this.pool;
    return view;
  }

  /** Slots not held now. */
  get available(): number {
    return this.pool.free;
  }

  /** A slot now, or undefined when all are held or others wait for one. */
  tryAcquire(): Release | undefined {
    if (this.pool.free === 0 || this.pool.waiting.length > 0) return undefined;
    this.pool.free--;
    return this.releaser();
  }

  /** A slot, once one is free and no better-ranked waiter wants it; rejects with the signal's reason if it aborts first. */
  acquire(signal?: AbortSignal): Promise<Release> {
    signal?.throwIfAborted();
    const now = this.tryAcquire();
    if (now) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        rank: this.rank,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.releaser());
        },
      };
      const onAbort = () => {
        const at = this.pool.waiting.indexOf(waiter);
        if (at !== -1) this.pool.waiting.splice(at, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pool.enqueue(waiter);
    });
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.pool.waiting.shift();
      // The slot passes straight to the best-ranked waiter.
      if (next) next.grant();
      else this.pool.free++;
    };
  }
}

/** The run's budget of CPU work: `caseWorkers` of the experiment, or the cores available. */
export function caseSlots(caseWorkers: number | undefined): Slots {
  return new Slots(caseWorkers ?? availableCores());
}
