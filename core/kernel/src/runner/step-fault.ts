import type { ErrorClass, Status } from '../contracts/index.js';
import { bounded, classifyAs, errorMessage, LimitExceeded } from './faults.js';

/** A fault that ends the trial's current step with a classified status. */
export class StepFault extends Error {
  constructor(
    readonly status: Status,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Runs a plugin call with a bound on its time (and the run's abort); a fault becomes a StepFault
 * with the class of the part that failed, a bound hit `timeout` or `cancelled`. A call that fails
 * once the run was aborted is `cancelled`: the abort took its processes away, it did not fail.
 */
export async function guard<T>(
  work: () => Promise<T> | T,
  errorClass: ErrorClass,
  bound?: { ms: number; what: string; cancel: AbortSignal },
): Promise<T> {
  try {
    return bound ? await bounded(work, bound.ms, bound.what, bound.cancel) : await work();
  } catch (error) {
    if (error instanceof StepFault) throw error;
    if (error instanceof LimitExceeded) throw new StepFault(error.status, error.message);
    throw new StepFault(classifyAs(error, errorClass, bound?.cancel), errorMessage(error));
  }
}
