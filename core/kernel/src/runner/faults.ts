import { clampTimerMs } from '../config/timer-limit.js';
import { ClassifiedError, type ErrorClass, errorStatus, type Status } from '../contracts/index.js';

/**
 * Maps anything thrown to a status: an abort becomes the reason the kernel gave the signal, a
 * ClassifiedError keeps its class, and anything else gets the class of the part that threw it
 * (a harness that throws while opening a session is a `harness` fault, a scorer's is `scorer`).
 * A signal aborted for any other reason (a queue worker that lost its job, a host's own abort)
 * is a cancellation: the work was taken away, the plugin did not fail.
 */
export function classifyAs(error: unknown, fallback: ErrorClass, signal?: AbortSignal): Status {
  if (signal?.aborted) {
    const reason = signal.reason;
    return reason === 'timeout' || reason === 'budget' ? reason : 'cancelled';
  }
  if (error instanceof ClassifiedError) return errorStatus(error.errorClass);
  return errorStatus(fallback);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Resolves after `ms`, without keeping the process alive for it. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, clampTimerMs(ms)).unref());
}

/**
 * Waits for `promise` at most `ms`; returns whether it settled. Used where a plugin must not be
 * able to hang the run (closing a session or a sandbox after an abort).
 */
export async function settleWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  await Promise.race([
    promise.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    ),
    sleep(ms),
  ]);
  return settled;
}

/** A plugin call ran past the kernel's bound, or the run was aborted while it ran. */
export class LimitExceeded extends Error {
  constructor(
    readonly status: 'timeout' | 'cancelled',
    message: string,
  ) {
    super(message);
    this.name = 'LimitExceeded';
  }
}

/**
 * Runs a plugin call that must not hang the run: it rejects with LimitExceeded after `ms`, or
 * at once when `cancel` aborts. The call itself is left to finish on its own.
 */
export function bounded<T>(
  work: () => Promise<T> | T,
  ms: number,
  what: string,
  cancel?: AbortSignal,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new LimitExceeded('timeout', `${what} did not finish within ${ms} ms`)),
      clampTimerMs(ms),
    );
    const onAbort = () => reject(new LimitExceeded('cancelled', `${what} was cancelled`));
    if (cancel?.aborted) onAbort();
    else cancel?.addEventListener('abort', onAbort, { once: true });
    Promise.resolve()
      .then(work)
      .then(resolve, reject)
      .finally(() => {
        clearTimeout(timer);
        cancel?.removeEventListener('abort', onAbort);
      });
  });
}
