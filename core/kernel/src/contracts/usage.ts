/**
 * Tokens and money for a turn; the kernel sums turns into steps and trials. A harness fills it
 * from what its agent reports (or `emptyUsage()` when it reports nothing); where the run's model
 * gateway carried the traffic, the kernel uses the gateway's metering instead.
 *
 * ```ts
 * const usage: Usage = { inputTokens: 1200, outputTokens: 340, cacheReadTokens: 800, cacheWriteTokens: 0, costUsd: 0.0071 };
 * ```
 */
export interface Usage {
  /** Prompt tokens sent to the model, without the cached ones below. */
  inputTokens: number;
  /** Tokens the model generated (reasoning included, where the provider counts it there). */
  outputTokens: number;
  /** Prompt tokens read from the provider's prompt cache. */
  cacheReadTokens: number;
  /** Prompt tokens written to the provider's prompt cache. */
  cacheWriteTokens: number;
  /** Cost in US dollars (the gateway prices tokens with the experiment's `prices:`). */
  costUsd: number;
}

/** A usage of zero: for a turn that used no model. */
export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
}

/** `a` plus `b`, field by field (missing fields of `b` count as 0). */
export function addUsage(a: Usage, b: Partial<Usage>): Usage {
  return {
    inputTokens: a.inputTokens + (b.inputTokens ?? 0),
    outputTokens: a.outputTokens + (b.outputTokens ?? 0),
    cacheReadTokens: a.cacheReadTokens + (b.cacheReadTokens ?? 0),
    cacheWriteTokens: a.cacheWriteTokens + (b.cacheWriteTokens ?? 0),
    costUsd: a.costUsd + (b.costUsd ?? 0),
  };
}
