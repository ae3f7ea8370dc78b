import { errorClasses } from '../contracts/status.js';
import type { Interval } from '../stats/bootstrap.js';
import type { OutcomeCounts } from '../stats/step-outcome.js';

/** What a cell shows when nothing scored stands behind it: there is no rate, not a rate of 0. */
export const noValue = '–';
/** What a cell shows when no trial of that condition (and task) is in the run. */
export const missingCell = 'missing';

/** The legend printed under every table that uses these cells, so a reader need not guess. */
export const outcomeLegend =
  "n scored / errored / cancelled: steps whose work was scored, lost to a fault (error:<class>), stopped by the user or the runner; rates and means are over scored steps only. '–': nothing scored, so no value; 'missing': the run has no trial of that condition (or of that task or repository under it); 'n=1': one value, too few for an interval.";

/**
 * The counts behind a cell: `3 scored`, `2 scored, 1 errored (model), 1 cancelled`. Errored and
 * cancelled steps appear only when there are some; error classes follow in brackets.
 */
export function formatOutcomeCounts(counts: OutcomeCounts): string {
  const classes = Object.entries(counts.errorClasses)
    .map(([name, count]) => (count === counts.errored ? name : `${count} ${name}`))
    .join(', ');
  return [
    `${counts.scored} scored`,
    ...(counts.errored > 0 ? [`${counts.errored} errored${classes ? ` (${classes})` : ''}`] : []),
    ...(counts.cancelled > 0 ? [`${counts.cancelled} cancelled`] : []),
  ].join(', ');
}

/**
 * The statement a table of rates prints when it stands on fewer steps than were planned: per
 * condition, how many steps the rates and means leave out and why (each fault class with what it
 * means, and the cancelled ones); undefined when every step of every row was scored.
 *
 * ```
 * not scored, so left out of the rates and means (each step's scores.json says what failed):
 *   oracle/just-solve/none: 1 of 2 steps: 1 error:scorer (a scorer failed)
 * ```
 */
export function leftOutNote(
  rows: readonly {
    condition: string;
    steps: number;
    counts: OutcomeCounts;
    /** Scored steps the rates leave out too: those the agent never reached (a limit ended its trial first). */
    unreached?: number;
  }[],
): string | undefined {
  const lines = rows.flatMap(({ condition, steps, counts, unreached = 0 }) => {
    const left = counts.errored + counts.cancelled + unreached;
    if (left === 0) return [];
    const classified = Object.values(counts.errorClasses).reduce((sum, count) => sum + count, 0);
    const why = [
      ...Object.entries(counts.errorClasses).map(
        ([name, count]) =>
          `${count} error:${name} (${(errorClasses as Record<string, string>)[name] ?? "a plugin's own fault class"})`,
      ),
      ...(counts.errored > classified
        ? [`${counts.errored - classified} errored (lost to a fault whose class the run does not hold)`]
        : []),
      ...(counts.cancelled > 0 ? [`${counts.cancelled} cancelled (stopped by the user or the runner)`] : []),
      ...(unreached > 0 ? [`${unreached} never reached (a limit ended the trial before)`] : []),
    ];
    return [`  ${condition}: ${left} of ${steps} steps: ${why.join(', ')}`];
  });
  if (lines.length === 0) return undefined;
  return [
    "not scored, so left out of the rates and means (each step's scores.json says what failed):",
    ...lines,
  ].join('\n');
}

/**
 * A mean with its interval: `0.50 [0.25, 0.75]` where two or more values stand behind it,
 * `1.00 n=1` for one, `–` for none; `(2 skipped)` follows when steps without a value were left out.
 */
export function formatInterval(
  interval: Interval | null | undefined,
  format: (value: number) => string,
): string {
  if (!interval) return noValue;
  const skipped = interval.skipped ? ` (${interval.skipped} skipped)` : '';
  if (interval.low === null || interval.high === null)
    return `${format(interval.mean)} n=${interval.n}${skipped}`;
  return `${format(interval.mean)} [${format(interval.low)}, ${format(interval.high)}]${skipped}`;
}
