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
