import { clampTimerMs } from '../config/timer-limit.js';
/**
 * How a user stops a run (the CLI wires it to SIGINT). `stop` stops scheduling trials and
 * turns and gives running turns `graceMs` to finish before they are aborted; `abort` aborts them
 * at once. Aborted turns end with status `cancelled`; the run stays resumable.
 */
export class RunCancellation {
  private readonly stopController = new AbortController();
  private readonly abortController = new AbortController();
  private timer?: NodeJS.Timeout;

  /** Aborted on the first stop request: start no new trial or turn. */
  get stopSignal(): AbortSignal {
    return this.stopController.signal;
  }

  /** Aborted when running turns must end now; its reason is `cancelled`. */
  get abortSignal(): AbortSignal {
    return this.abortController.signal;
  }

  get stopRequested(): boolean {
    return this.stopController.signal.aborted;
  }

  stop(graceMs = 30_000): void {
    if (this.stopRequested) return;
    this.stopController.abort('cancelled');
    this.timer = setTimeout(() => this.abort(), clampTimerMs(graceMs));
    this.timer.unref();
  }

  abort(): void {
    if (!this.stopRequested) this.stopController.abort('cancelled');
    clearTimeout(this.timer);
    if (!this.abortController.signal.aborted) this.abortController.abort('cancelled');
  }

  /** Forgets the pending grace timer (the run ended). */
  dispose(): void {
    clearTimeout(this.timer);
  }
}
