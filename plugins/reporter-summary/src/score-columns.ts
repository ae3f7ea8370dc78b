import { closest, noValue, type TrialRecord } from '@longhaul/core';
import type { ConditionSummary } from './summary.js';

/** How many scores the table shows when the `columns` option leaves the choice to it. */
export const defaultColumnCount = 4;

/** The score columns of the table, and what the choice left out or could not find. */
export interface ScoreColumns {
  /** Score keys shown, in order. */
  shown: string[];
  /** Keys the `columns` option names that no condition has. */
  unknown: string[];
  /** Keys of the run not shown (none when `columns` chose). */
  hidden: string[];
  /** Every numeric score key of the run's conditions, sorted. */
  available: string[];
}

/**
 * Score keys in the order the scorers gave them: scorers as the experiment lists them, each
 * one's metrics as it emits them (a scorer puts its main figure first).
 */
export function scoreOrder(trials: { record: TrialRecord }[]): string[] {
  const keys = new Set<string>();
  for (const { record } of trials) {
    for (const step of record.steps) for (const key of Object.keys(step.scores)) keys.add(key);
    for (const key of Object.keys(record.scores)) keys.add(key);
  }
  return [...keys];
}

/**
 * The scores shown beside the solve rates: those `columns` names, else the first few of every
 * scorer but the solve scorer (its own figures are the solve rates), in the order the scorers
 * gave them (`order`), so a scorer of one's own shows up without configuration.
 */
export function scoreColumns(
  conditions: ConditionSummary[],
  solveScorer: string,
  columns: string[] | undefined,
  order: string[] = [],
): ScoreColumns {
  const available = [...new Set(conditions.flatMap((condition) => Object.keys(condition.scores)))].sort();
  if (columns !== undefined)
    return {
      shown: columns.filter((key) => available.includes(key)),
      unknown: columns.filter((key) => !available.includes(key)),
      hidden: [],
      available,
    };
  const rank = (key: string) => {
    const index = order.indexOf(key);
    return index === -1 ? order.length : index;
  };
  // A stable sort: keys no record gave (none, as summaries are made) keep their sorted order.
  // The integrity scorer's figures have their own column (tamper).
  const others = available
    .filter((key) => !key.startsWith(`${solveScorer}.`) && !key.startsWith('integrity.'))
    .sort((a, b) => rank(a) - rank(b));
  return {
    shown: others.slice(0, defaultColumnCount),
    unknown: [],
    hidden: others.slice(defaultColumnCount),
    available,
  };
}

/** Decimals for a column of means: none when every mean is whole, fewer as the figures grow. */
function digitsFor(values: number[]): number {
  if (values.every((value) => Number.isInteger(value))) return 0;
  const largest = Math.max(...values.map(Math.abs));
  return largest < 10 ? 3 : largest < 1000 ? 1 : 0;
}

/** The cells of one score column, one per condition: its mean, or `–` where no step had it. */
export function scoreCells(conditions: ConditionSummary[], key: string): string[] {
  const values = conditions.map((condition) => condition.scores[key]);
  const digits = digitsFor(values.filter((value): value is number => value !== undefined));
  return values.map((value) => (value === undefined ? noValue : value.toFixed(digits)));
}

/** How many of the scores left out the note names: enough to recognise them, short enough to read. */
const listed = 6;

/**
 * The lines under the table about the choice of columns: each name `columns` gives that the run
 * has no score for (with the scores it does have), and how many scores the default left out.
 */
export function columnNotes(columns: ScoreColumns): string[] {
  const notes = columns.unknown.map((key) => {
    const near = closest(key, columns.available);
    return `summary: columns names ${key}, which no step or trial of this run scored${near ? ` (did you mean ${near}?)` : ''}; its scores: ${columns.available.join(', ') || 'none'}`;
  });
  if (columns.hidden.length > 0) {
    const named = columns.hidden.slice(0, listed).join(', ');
    const rest = columns.hidden.length > listed ? ', …' : '';
    notes.push(
      `${columns.hidden.length} more score${columns.hidden.length === 1 ? '' : 's'} in summary.json (${named}${rest}); the summary reporter's columns option chooses the table's`,
    );
  }
  return notes;
}

/**
 * A line per shown score whose mean left out steps without a value (nothing measured there),
 * naming per condition how many: a mean over fewer steps than the table's `scored` says so.
 */
export function skippedNotes(conditions: ConditionSummary[], shown: string[]): string[] {
  return shown.flatMap((key) => {
    const parts = conditions.flatMap((condition) => {
      const skipped = condition.skipped?.[key] ?? 0;
      return skipped > 0 ? [`${skipped} in ${condition.condition}`] : [];
    });
    return parts.length > 0
      ? [`${key}: steps without a value left out of the mean, not taken as 0: ${parts.join(', ')}`]
      : [];
  });
}
