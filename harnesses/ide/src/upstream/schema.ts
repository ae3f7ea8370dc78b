import { z } from 'zod';

/**
 * The released harness's tool schemas as its model sees them: the parameter names, types, enums
 * and `required` lists of harness.py's `EnhancedTools.tools_info`, described in our words. Twelve
 * of its sixteen tools declare an `explanation` and four require one; its dispatcher reads it with
 * a default everywhere, so `input` takes it as optional.
 */
export function schema(
  properties: Record<string, Record<string, unknown>>,
  required: string[],
): Record<string, unknown> {
  return { type: 'object', properties, required };
}

/** The `explanation` a tool takes (never required by the dispatcher). */
export const explanation = z.string().optional();

/** The `explanation` property of a declared schema. */
export const explains = (what = 'why this tool is used now and how it serves the goal') => ({
  explanation: { type: 'string', description: `One sentence: ${what}.` },
});
