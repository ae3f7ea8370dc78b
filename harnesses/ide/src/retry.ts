import { setTimeout as sleep } from 'node:timers/promises';
import { ClassifiedError } from '@longhaul/core';
import { APICallError } from 'ai';

export interface RetryOptions {
  retries: number;
  /** First delay; doubled after each retry. */
  delayMs: number;
  callTimeoutMs: number;
  signal: AbortSignal;
  onRetry?(attempt: number, error: unknown, delayMs: number): void;
}

class CallTimeout extends Error {}

function statusOf(error: unknown): number | undefined {
  return APICallError.isInstance(error) ? error.statusCode : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Transient failures worth another try: timeouts, 408/409/429/5xx, connection failures. */
export function isTransient(error: unknown): boolean {
  if (error instanceof CallTimeout) return true;
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    return (
      error.isRetryable ||
      status === undefined ||
      status === 408 ||
      status === 409 ||
      status === 429 ||
      status >= 500
    );
  }
  const text = `${messageOf(error)} ${messageOf((error as { cause?: unknown })?.cause)}`;
  return /fetch failed|ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|socket hang up|network/i.test(text);
}

/** The class a model failure is recorded with once retries are spent (or it is not transient). */
export function modelFault(error: unknown): ClassifiedError {
  if (error instanceof ClassifiedError) return error;
  const status = statusOf(error);
  const text = messageOf(error);
  const errorClass =
    status === 401 || status === 403
      ? 'auth'
      : status === 429
        ? 'rate_limit'
        : /context|too long|maximum.*tokens|prompt is too long/i.test(text) &&
            (status === 400 || status === 413)
          ? 'context_overflow'
          : 'model';
  return new ClassifiedError(errorClass, `model call failed${status ? ` (HTTP ${status})` : ''}: ${text}`, {
    cause: error,
  });
}

/**
 * Calls `fn` with a signal that also fires after `callTimeoutMs`; transient failures are retried
 * with exponential backoff. An abort of `signal` ends at once (the caller reads its reason).
 */
export async function withRetries<T>(
  fn: (signal: AbortSignal) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new CallTimeout()), options.callTimeoutMs);
    try {
      return await fn(AbortSignal.any([options.signal, timeout.signal]));
    } catch (caught) {
      if (options.signal.aborted) throw caught;
      const error = timeout.signal.aborted
        ? new CallTimeout(`the model call took longer than ${options.callTimeoutMs / 1000} s`)
        : caught;
      if (attempt >= options.retries || !isTransient(error)) {
        if (error instanceof CallTimeout)
          throw new ClassifiedError('model', `${error.message} (after ${attempt + 1} attempts)`);
        throw modelFault(error);
      }
      const delay = options.delayMs * 2 ** attempt;
      options.onRetry?.(attempt + 1, error, delay);
      await sleep(delay, undefined, { signal: options.signal });
    } finally {
      clearTimeout(timer);
    }
  }
}
