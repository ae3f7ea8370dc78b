/**
 * How a turn, a step or a trial ended. `ok` and `failed` are the agent's own outcomes (it finished,
 * or it said it could not); everything else is imposed: a fault with its class, a limit, or the user.
 * Scores are separate: an `ok` step can still fail its tests. `timeout` and `budget` are the
 * kernel's limits (`limits.turnSeconds`/`stepSeconds`, `limits.trialUsd`), `cancelled` the user's Ctrl-C.
 */
export type Status = 'ok' | 'failed' | `error:${string}` | 'timeout' | 'budget' | 'cancelled';

/** A step that never started because the trial ended before it (after a fault, a limit or a cancel). */
export type StepStatus = Status | 'skipped';

/** Fault classes the kernel and the built-in plugins use, with what each means; plugins may add their own after `error:`. */
export const errorClasses = {
  crash: 'the agent process died or threw',
  protocol: "the agent's output could not be parsed",
  sandbox: 'the environment failed (container died, exec failed)',
  harness: 'the harness itself failed to prepare or open a session',
  model: 'the model provider failed after retries',
  auth: 'the provider refused the key',
  forbidden: "the gateway refused a request the trial's token does not allow (another model)",
  rate_limit: "the provider's rate limit, after retries",
  context_overflow: "the conversation outgrew the model's context window",
  refusal: 'the model refused the request',
  oom: 'the sandbox killed a process for memory',
  disk: 'the sandbox stopped its processes for going past its disk limit',
  scorer: 'a scorer failed',
  memory: 'a memory plugin failed around a turn',
  internal: 'anything unclassified: a bug to report',
} as const;

/** One of the built-in fault classes (`crash`, `sandbox`, `oom`, `disk`…); see `errorClasses`. */
export type ErrorClass = keyof typeof errorClasses;

/** `errorStatus('crash')` is `'error:crash'`. */
export function errorStatus(errorClass: ErrorClass | string): Status {
  return `error:${errorClass}`;
}

/** Whether a status is a fault (`error:<class>`), not an outcome or a limit. */
export function isError(status: StepStatus): boolean {
  return status.startsWith('error:');
}

/**
 * An error that carries its class, so whoever catches it can record a classified status:
 * `throw new ClassifiedError('sandbox', 'the container exited')` becomes `error:sandbox`.
 */
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

/**
 * Maps anything thrown to a status; aborts map to the reason the kernel gave the signal. A harness
 * ends an aborted turn with `classify(undefined, signal)`, and a failed one with
 * `classify(error)` (`error:internal` unless the error is a ClassifiedError).
 */
export function classify(error: unknown, signal?: AbortSignal): Status {
  if (signal?.aborted) {
    const reason = signal.reason;
    if (reason === 'timeout' || reason === 'budget' || reason === 'cancelled') return reason;
  }
  if (error instanceof ClassifiedError) return errorStatus(error.errorClass);
  return errorStatus('internal');
}
