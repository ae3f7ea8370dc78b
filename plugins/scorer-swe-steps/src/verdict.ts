import { type Outcome, passes } from './run-suite.js';

export interface Tally {
  passed: number;
  total: number;
}

export function tally(ids: readonly string[], outcomes: Record<string, Outcome>): Tally {
  return { passed: ids.filter((id) => passes(outcomes[id] ?? 'missing')).length, total: ids.length };
}

/** Percentage of a tally, null when there is nothing to count. */
export const percent = ({ passed, total }: Tally) => (total === 0 ? null : (100 * passed) / total);

/** The ids among `ids` that did not pass, with their outcomes. */
export function failing(ids: readonly string[], outcomes: Record<string, Outcome>): [string, Outcome][] {
  return ids.map((id): [string, Outcome] => [id, outcomes[id] ?? 'missing']).filter(([, o]) => !passes(o));
}

export interface FeedbackInput {
  pr: number;
  /** PRs other than `pr` whose tests were in the run (cascading). */
  earlier: number[];
  failed: [string, Outcome][];
  total: number;
  output: string;
  timedOut: boolean;
  timeoutMs: number;
  /** Characters of the run's output to include (its tail). */
  maxChars: number;
  /** Failing ids to list by name. */
  maxIds: number;
}

/** What the agent is told after a cycle whose suite failed (the paper returns the run's log). */
export function feedbackText(input: FeedbackInput): string {
  const scope =
    input.earlier.length > 0
      ? ` and of the PRs before it (${input.earlier.map((n) => `#${n}`).join(', ')})`
      : '';
  const listed = input.failed.slice(0, input.maxIds).map(([id, outcome]) => `- ${id} (${outcome})`);
  const more = input.failed.length - listed.length;
  const output =
    input.output.length > input.maxChars ? `…${input.output.slice(-input.maxChars)}` : input.output;
  return [
    `Tests of PR #${input.pr}${scope}: ${input.failed.length} of ${input.total} did not pass.`,
    ['Failing tests:', ...listed, ...(more > 0 ? [`- … and ${more} more`] : [])].join('\n'),
    input.timedOut
      ? `The test run did not finish within ${Math.round(input.timeoutMs / 1000)} s.`
      : `Output of the test run:\n${output}`,
  ].join('\n\n');
}
