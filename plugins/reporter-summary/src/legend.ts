import { leftOutNote, noValue } from '@longhaul/core';
import type { ConditionSummary } from './summary.js';

/**
 * One short line per abbreviation the table shows, printed under it. The solve rates follow
 * SlopCodeBench's checkpoint rules (strict ≤ iso ≤ core), read from the solve scorer's scores.
 */
export function tableLegend(options: {
  solveScorer: string;
  scores: string[];
  dashes: boolean;
  /** Labels of the flag columns shown (see `flagColumns`). */
  flags?: string[];
}): string {
  const flagLines: Record<string, string> = {
    'tools failed':
      "tools failed: scored steps where most of the agent's tool calls failed (the step's scores.json says why)",
    tamper:
      "tamper: steps where the agent changed the tests, their configuration, runner hooks, start-up or results files (integrity.tamper; the step's scores.json lists them)",
  };
  const from = (metric: string) => `(${options.solveScorer}.${metric})`;
  return [
    `strict: share of scored steps whose every test passes, earlier steps' included ${from('strict')}`,
    `iso: share of scored steps whose own tests all pass, earlier steps' left out ${from('iso')}`,
    `core: share of scored steps whose core tests (what the spec states or shows) pass ${from('core')}`,
    'scored / errored / cancelled: steps scored / lost to a fault / stopped; rates and means are over scored steps',
    ...(options.flags ?? []).flatMap((flag) => (flagLines[flag] ? [flagLines[flag]] : [])),
    ...(options.scores.length > 0
      ? [`${options.scores.join(', ')}: mean over the scored steps (and trials) that have the score`]
      : []),
    ...(options.dashes ? [`${noValue}: nothing measured, so no value (not 0)`] : []),
  ].join('\n');
}

/**
 * Under the table when some condition's rates stand on fewer steps than it planned: how many each
 * leaves out and why (fault classes, cancelled); undefined when every step was scored.
 */
export function leftOutOfRates(conditions: ConditionSummary[]): string | undefined {
  return leftOutNote(
    conditions.map((condition) => ({
      condition: condition.condition,
      steps: condition.steps,
      counts: {
        scored: condition.scored,
        errored: condition.errored,
        cancelled: condition.cancelled,
        missing: 0,
        errorClasses: condition.errorClasses,
      },
    })),
  );
}
