import { ClassifiedError, type ErrorClass, errorStatus, type Status } from '../contracts/index.js';

/**
 * Maps anything thrown to a status: an abort becomes the reason the kernel gave the signal, a
 * ClassifiedError keeps its class, and anything else gets the class of the part that threw it
 * (a harness that throws while opening a session is a `harness` fault, a scorer's is `scorer`).
 */
export function classifyAs(error: unknown, fallback: ErrorClass, signal?: AbortSignal): Status {
  if (signal?.aborted) {
    const reason = signal.reason;
    if (reason === 'timeout' || reason === 'budget' || reason === 'cancelled') return reason;
  }
  if (error instanceof ClassifiedError) return errorStatus(error.errorClass);
  return errorStatus(fallback);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Resolves after `ms`, without keeping the process alive for it. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
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
