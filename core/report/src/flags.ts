import { mostToolCallsFailed, type ToolCalls } from '@longhaul/core';

/** The score whose value above 0 says a step tampered with the machinery of judgment. */
export const tamperKey = 'integrity.tamper';

/** Whether a step has a tamper signal; undefined where the integrity scorer gave no value. */
export function tampered(step: { scores: Record<string, number | boolean | null> }): boolean | undefined {
  const value = step.scores[tamperKey];
  return typeof value === 'number' ? value > 0 : undefined;
}

/**
 * What a reader should look at in a step whatever its score says, in a line each: most of the
 * agent's tool calls failed; the agent changed the machinery of judgment.
 */
export function stepFlags(step: {
  tools?: ToolCalls;
  scores: Record<string, number | boolean | null>;
}): string[] {
  const flags: string[] = [];
  if (mostToolCallsFailed(step.tools))
    flags.push(`${step.tools!.failed} of ${step.tools!.calls} tool calls failed`);
  if (tampered(step)) {
    const count = step.scores[tamperKey] as number;
    flags.push(`${count} tamper signal${count === 1 ? '' : 's'}`);
  }
  return flags;
}
