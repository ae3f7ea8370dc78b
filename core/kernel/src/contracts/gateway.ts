import type { ModelEndpoint, TurnFocus } from './harness.js';
import type { ClassifiedError } from './status.js';
import type { Usage } from './usage.js';

/**
 * The run's model gateway as the kernel and plugins see it. Bound in the experiment container
 * when the experiment has `models:`; harnesses that need a model get their endpoint from it.
 *
 * Access is per trial and per model: a token lets its holder use exactly one model of
 * `models:` on behalf of one trial, and nothing else. A request for another model is refused
 * (403, recorded as the trial's `forbidden` fault) before any backend sees it, and the backends
 * that act on the task (the oracle, scripted replies) answer from the token's trial only.
 */
export interface ModelGateway {
  /**
   * An endpoint for `model` (default: the gateway's default model, the first of `models:`) on
   * behalf of a trial. Its token allows that one model only; each model a trial uses gets its
   * own token (the harness's agent one, a judge a plugin calls in-process another), so a token
   * handed into a sandbox never reaches the judge's model. Asking again for the same trial and
   * model returns the same token. `hostAddress` is how the caller reaches the host (the
   * sandbox's `hostAddress`, or `127.0.0.1` for calls from the runner's own process). Rejects
   * with a ClassifiedError when `model` is not one of the configured models.
   */
  endpoint(trialId: string, hostAddress: string, model?: string): Promise<ModelEndpoint>;
  /** Tells model backends that act on the task (the oracle) what the trial's current turn is. */
  focus(trialId: string, focus: TurnFocus): void;
  /** Tokens and cost metered for the trial since the last call (the kernel sums them per turn). */
  takeUsage(trialId: string): Usage;
  /**
   * Faults the gateway answered the trial's requests with since the last call (auth, forbidden,
   * rate_limit, context_overflow...). The kernel records each in the turn's trajectory and
   * uses them to classify a turn that failed because of them.
   */
  takeErrors?(trialId: string): ClassifiedError[];
  /**
   * Ends the trial's access: revokes every token issued for it (a request with one is then
   * answered 401) and forgets its focus and pending faults. The kernel calls it on every path a
   * trial ends by, faults and cancellation included.
   */
  release(trialId: string): void;
  /**
   * The files models answer from (a scripted model's `file`, a replay's recording) with the
   * sha256 of their bytes, by model name. The run keeps them in lock.json; a resume whose files
   * differ is refused, since it would mix two models in one condition.
   */
  inputs?: Record<string, { file: string; sha256: string }>;
}
