import { mostToolCallsFailed, type ToolCalls } from '@longhaul/core';

/**
 * What a reader should look at in a step whatever its score says, in a line each: most of the
 * agent's tool calls failed.
 */
export function stepFlags(step: { tools?: ToolCalls }): string[] {
  const flags: string[] = [];
  if (mostToolCallsFailed(step.tools))
    flags.push(`${step.tools!.failed} of ${step.tools!.calls} tool calls failed`);
  return flags;
}
