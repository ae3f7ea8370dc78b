import type { TrajectoryEvent } from '@longhaul/core';
import { generateText, type LanguageModel, Output } from 'ai';
import { z } from 'zod';

/** SWE-agent's failure taxonomy, plus the category the paper adds. */
export const failureCategories = [
  'Incorrect Implementation',
  'Overly Specific Implementation',
  'Failed to Recover from Edit',
  'Failed to Find Edit Location',
  'Failed to Find Relevant File',
  'Gave Up Prematurely',
  "Can't Reproduce",
  'Ran Out of Time',
  'Solving Previous Issues',
] as const;
export type FailureCategory = (typeof failureCategories)[number];

/** A category as a metric name: `Can't Reproduce` → `cant_reproduce`. */
export const slugOf = (category: string) =>
  category
    .toLowerCase()
    .replace(/'/g, '')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');

export const labelSchema = z.object({
  category: z.enum(failureCategories).describe('The one category that best explains why the PR failed'),
  explanation: z.string().describe('Two or three sentences of evidence from the trace'),
});

export const judgeSystemPrompt = `You analyse why a coding agent failed one pull request of a series it worked through in one repository. You get the request, the requests before it, the tests that still fail, and the end of the agent's trace (its messages and tool calls).

Pick exactly one category:
- Incorrect Implementation: it changed the right code, but the change is wrong.
- Overly Specific Implementation: the change handles the examples it saw and not the general case.
- Failed to Recover from Edit: an edit broke something (syntax, imports) and it never repaired it.
- Failed to Find Edit Location: it found the right file but changed the wrong place in it.
- Failed to Find Relevant File: it never found the file that needed the change.
- Gave Up Prematurely: it stopped before the work was done.
- Can't Reproduce: it could not reproduce the problem and so did not fix it.
- Ran Out of Time: it was still working sensibly when its budget ended.
- Solving Previous Issues: it worked on an earlier request of the series (or on leftovers of one) instead of this one.

Answer with the category and a short explanation grounded in the trace.`;

/** The trace as compact lines, keeping its end when it is longer than `maxChars`. */
export function traceText(events: readonly TrajectoryEvent[], maxChars: number): string {
  const lines = events.flatMap((event) => {
    switch (event.type) {
      case 'message':
        return [`${event.role}: ${event.text}`];
      case 'tool.call':
        return [`call ${event.name} ${JSON.stringify(event.input)}`];
      case 'tool.result':
        return [`result${event.isError ? ' (error)' : ''}: ${event.output.slice(0, 400)}`];
      case 'error':
        return [`error ${event.errorClass}: ${event.message}`];
      case 'turn.end':
        return [`turn ended ${event.result.status}`];
      default:
        return [];
    }
  });
  const text = lines.join('\n');
  return text.length > maxChars ? `…${text.slice(-maxChars)}` : text;
}

export interface FailedPr {
  pr: string;
  request: string;
  earlier: string[];
  failing: string[];
  trace: string;
}

export function judgePrompt(failed: FailedPr): string {
  const earlier = failed.earlier.map((text, i) => `${i + 1}. ${text.replace(/\s+/g, ' ').slice(0, 300)}`);
  return [
    `Failed pull request: ${failed.pr}`,
    `Request:\n${failed.request}`,
    `Earlier requests of the series:\n${earlier.join('\n') || '(none)'}`,
    `Tests that did not pass:\n${failed.failing.join('\n') || '(unknown)'}`,
    `End of the agent's trace:\n${failed.trace || '(empty)'}`,
  ].join('\n\n');
}

export async function labelFailure(
  model: LanguageModel,
  failed: FailedPr,
  signal?: AbortSignal,
): Promise<z.output<typeof labelSchema>> {
  const { output } = await generateText({
    model,
    system: judgeSystemPrompt,
    prompt: judgePrompt(failed),
    output: Output.object({ schema: labelSchema }),
    temperature: 0,
    abortSignal: signal,
  });
  return output;
}
