import { writeJsonAtomic } from '../store/atomic.js';
import type { LockFile } from '../store/lock.js';

/** Serializes updates of lock.json (harnesses report their versions as trials prepare). */
export class LockWriter {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    readonly lock: LockFile,
  ) {}

  write(): Promise<void> {
    this.chain = this.chain.then(() => writeJsonAtomic(this.path, this.lock));
    return this.chain;
  }

  /** Records what a harness's prepare returned, the first time that harness reports. */
  harnessPrepared(label: string, info: Record<string, unknown>): void {
    if (this.lock.harnesses[label]) return;
    this.lock.harnesses[label] = info;
    void this.write().catch(() => {});
  }

  settled(): Promise<void> {
    return this.chain.catch(() => {});
  }
}
