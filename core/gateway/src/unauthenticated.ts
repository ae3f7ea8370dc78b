import type { Logger } from '@longhaul/core';

export interface UnauthenticatedOptions {
  /** Requests an address may send without a valid token in a burst (default 20). */
  burst?: number;
  /** Requests per second an address regains, up to `burst` (default 1). */
  perSecond?: number;
  /** How often a summary of the refusals since the last one is logged, ms (default 60000). */
  summaryMs?: number;
}

interface Bucket {
  level: number;
  at: number;
}

interface Counts {
  refused: number;
  limited: number;
}

/**
 * Requests without a valid token, per remote address: a token bucket decides between 401 and
 * 429 (past the limit), and the refusals are counted rather than logged one by one, so a
 * sandbox that floods the gateway can fill neither the log nor the request log. The first
 * refusal is logged as a warning; after that a summary per period, and one at close.
 */
export class Unauthenticated {
  private readonly burst: number;
  private readonly perSecond: number;
  private readonly buckets = new Map<string, Bucket>();
  private recent = new Map<string, Counts>();
  private readonly total: Counts = { refused: 0, limited: 0 };
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly log: Logger | undefined,
    options: UnauthenticatedOptions = {},
  ) {
    this.burst = options.burst ?? 20;
    this.perSecond = options.perSecond ?? 1;
    this.timer = setInterval(() => this.summarize('in the last period'), options.summaryMs ?? 60_000);
    this.timer.unref();
  }

  /** Counts one refused request from `address`; true when it is past the rate limit (429). */
  refuse(address: string, what: string): boolean {
    const now = performance.now();
    const bucket = this.buckets.get(address) ?? { level: this.burst, at: now };
    bucket.level = Math.min(this.burst, bucket.level + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    const limited = bucket.level < 1;
    if (!limited) bucket.level -= 1;
    this.buckets.set(address, bucket);
    if (this.total.refused === 0)
      this.log?.warn(
        `gateway: refused ${what} from ${address}: no valid token; further requests without one are counted, not logged one by one`,
      );
    const counts = this.recent.get(address) ?? { refused: 0, limited: 0 };
    counts.refused++;
    this.total.refused++;
    if (limited) {
      counts.limited++;
      this.total.limited++;
    }
    this.recent.set(address, counts);
    return limited;
  }

  /** Stops the periodic summary and logs the last one with the totals. */
  close(): void {
    clearInterval(this.timer);
    this.summarize('since the last summary');
    if (this.total.refused > 1)
      this.log?.warn(
        `gateway: ${this.total.refused} requests without a valid token in all, ${this.total.limited} of them answered 429 past the rate limit (${this.burst} at once, ${this.perSecond} per second per address)`,
      );
  }

  private summarize(period: string): void {
    const recent = [...this.recent];
    this.recent = new Map();
    // A bucket that has refilled holds nothing worth keeping.
    const now = performance.now();
    for (const [address, bucket] of this.buckets)
      if (bucket.level + ((now - bucket.at) / 1000) * this.perSecond >= this.burst)
        this.buckets.delete(address);
    const refused = recent.reduce((sum, [, counts]) => sum + counts.refused, 0);
    // The first refusal was logged on its own.
    if (refused === 0 || (refused === 1 && this.total.refused === 1)) return;
    const limited = recent.reduce((sum, [, counts]) => sum + counts.limited, 0);
    const from = recent
      .sort(([, a], [, b]) => b.refused - a.refused)
      .slice(0, 5)
      .map(([address, counts]) => `${address} ${counts.refused}`)
      .join(', ');
    this.log?.warn(
      `gateway: refused ${refused} requests without a valid token ${period} (${limited} past the rate limit, answered 429); from ${from}${recent.length > 5 ? ', ...' : ''}`,
    );
  }
}
