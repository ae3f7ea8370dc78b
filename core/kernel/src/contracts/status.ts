/**
 * How a turn, a step or a trial ended. `ok` and `failed` are the agent's own outcomes (it finished,
 * or it said it could not); everything else is imposed: a fault with its class, a limit, or the user.
 * Scores are separate: an `ok` step can still fail its tests.
 */
export type Status = 'ok' | 'failed' | `error:${string}` | 'timeout' | 'budget' | 'cancelled';

/** A step that never started because the trial ended before it (after a fault, a limit or a cancel). */
export type StepStatus = Status | 'skipped';

/** Fault classes the kernel and the built-in plugins use; plugins may add their own after `error:`. */
export type ErrorClass =
  | 'crash' // the agent process died or threw
  | 'protocol' // the agent's output could not be parsed
  | 'sandbox' // the environment failed (container died, exec failed)
  | 'harness' // the harness itself failed to prepare or open a session
  | 'model' // the model provider failed after retries
  | 'auth'
  | 'forbidden' // the gateway refused a request the trial's token does not allow (another model)
  | 'rate_limit'
  | 'context_overflow'
  | 'refusal'
  | 'oom'
  | 'scorer'
  | 'memory'
  | 'internal';

export function errorStatus(errorClass: ErrorClass | string): Status {
  return `error:${errorClass}`;
}

export function isError(status: StepStatus): boolean {
  return status.startsWith('error:');
}

/** An error that carries its class, so whoever catches it can record a classified status. */
export class ClassifiedError extends Error {
  constructor(
    readonly errorClass: ErrorClass | string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ClassifiedError';
  }
}

/** Maps anything thrown to a status; aborts map to the reason the kernel gave the signal. */
export function classify(error: unknown, signal?: AbortSignal): Status {
  if (signal?.aborted) {
    const reason = signal.reason;
    if (reason === 'timeout' || reason === 'budget' || reason === 'cancelled') return reason;
  }
  if (error instanceof ClassifiedError) return errorStatus(error.errorClass);
  return errorStatus('internal');
}
