import type { ModelEndpoint, TurnFocus } from './harness.js';
import type { ClassifiedError } from './status.js';
import type { Usage } from './usage.js';

/**
 * The run's model gateway as the kernel and plugins see it. Bound in the experiment container
 * when the experiment has `models:`; harnesses that need a model get their endpoint from it.
 */
export interface ModelGateway {
  /** An endpoint for a trial; `hostAddress` is how the trial's sandbox reaches the host. */
  endpoint(trialId: string, hostAddress: string, purpose?: string): Promise<ModelEndpoint>;
  /** Tells model backends that act on the task (the oracle) what the trial's current turn is. */
  focus(trialId: string, focus: TurnFocus): void;
  /** Tokens and cost metered for the trial since the last call (the kernel sums them per turn). */
  takeUsage(trialId: string): Usage;
  /**
   * Faults the gateway answered the trial's requests with since the last call (auth, rate_limit,
   * context_overflow...). The kernel uses them to classify a turn that failed because of them.
   */
  takeErrors?(trialId: string): ClassifiedError[];
  /** Forgets the trial's token. */
  release(trialId: string): void;
}
