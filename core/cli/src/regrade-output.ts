import type { RegradedStep } from '@longhaul/core';
import { fitColumns } from './fit-columns.js';

type Value = number | boolean | null | undefined;

/** A score as printed: numbers to 3 decimals, a missing score as `-`. */
export const shownValue = (value: Value): string =>
  value === undefined
    ? '-'
    : typeof value === 'number'
      ? String(Math.round(value * 1000) / 1000)
      : String(value);

/** Whether a score is one of the given scorers' (`<label>.<metric>`); every score without a list. */
const ofScorers = (key: string, scorers: readonly string[] | undefined) =>
  scorers === undefined || scorers.some((label) => key.startsWith(`${label}.`));

/**
 * The scores of a step whose value the regrade changed, added or dropped, in key order. A score
 * of a scorer the regrade did not run (`--add` runs only the added ones) is not dropped: it stays
 * as the run scored it.
 */
export function changedScores(
  step: RegradedStep,
  scorers?: readonly string[],
): { key: string; before: Value; after: Value }[] {
  const keys = [...new Set([...Object.keys(step.before.scores), ...Object.keys(step.scores)])].sort();
  return keys
    .filter((key) => key in step.scores || ofScorers(key, scorers))
    .map((key) => ({ key, before: step.before.scores[key], after: step.scores[key] }))
    .filter(({ before, after }) => before !== after);
}

/**
 * One regraded step as a line: its number, id and status (`ok → error:scorer` when the regrade
 * changed it), then each changed score as `key old → new`. Step ids are padded to `stepWidth`
 * (the longest of the run's), so the statuses line up. In `width` characters when given: the
 * scores that do not fit are counted (`+3 more`); `--json` has them all.
 */
export function stepLine(
  step: RegradedStep,
  scoredBefore: boolean,
  layout: { width?: number; stepWidth?: number; scorers?: readonly string[] } = {},
): string {
  const { width, stepWidth = 0, scorers } = layout;
  const status = step.status === step.before.status ? step.status : `${step.before.status} → ${step.status}`;
  const head = `  ${String(step.index + 1).padStart(2)} ${step.step.padEnd(stepWidth)}  ${status}${scoredBefore ? ' (regraded earlier)' : ''}  `;
  const changes = changedScores(step, scorers).map(
    ({ key, before, after }) => `${key} ${shownValue(before)} → ${shownValue(after)}`,
  );
  if (changes.length === 0) return `${head}no score changed`;
  const line = (shown: number) =>
    `${head}${changes.slice(0, shown).join(', ')}${shown < changes.length ? `, +${changes.length - shown} more` : ''}`;
  let shown = changes.length;
  // At least one change is shown, however narrow the terminal.
  while (width !== undefined && shown > 1 && line(shown).length > width) shown -= 1;
  return line(shown);
}

const mean = (values: Value[]): number | undefined => {
  const numbers = values.flatMap((value) =>
    typeof value === 'number' ? [value] : typeof value === 'boolean' ? [value ? 1 : 0] : [],
  );
  return numbers.length === 0 ? undefined : numbers.reduce((sum, n) => sum + n, 0) / numbers.length;
};

/**
 * The regrade at a glance: per condition, each score the regrade changed on some step, with how
 * many steps it changed on and its mean over the steps before and after (true counts 1); then
 * how many scores no step changed.
 */
export function regradeSummary(steps: RegradedStep[], width?: number, scorers?: readonly string[]): string {
  if (steps.length === 0) return 'no complete step to regrade';
  const rows: string[][] = [];
  const unchanged = new Set<string>();
  const changedKeys = new Set<string>();
  const conditions = [...new Set(steps.map((step) => step.condition))];
  for (const condition of conditions) {
    const ofCondition = steps.filter((step) => step.condition === condition);
    const keys = [
      ...new Set(
        ofCondition.flatMap((step) => [
          ...Object.keys(step.before.scores).filter((key) => ofScorers(key, scorers)),
          ...Object.keys(step.scores),
        ]),
      ),
    ].sort();
    for (const key of keys) {
      const changed = ofCondition.filter((step) => step.before.scores[key] !== step.scores[key]).length;
      if (changed === 0) {
        unchanged.add(key);
        continue;
      }
      changedKeys.add(key);
      rows.push([
        condition,
        key,
        `${changed}/${ofCondition.length}`,
        shownValue(mean(ofCondition.map((step) => step.before.scores[key]))),
        shownValue(mean(ofCondition.map((step) => step.scores[key]))),
      ]);
    }
  }
  const statuses = steps.filter((step) => step.status !== step.before.status).length;
  const notes = [
    ...(statuses > 0 ? [`${statuses} step${statuses === 1 ? '' : 's'} changed status`] : []),
    ...(rows.length === 0
      ? [`no score changed on any of the ${steps.length} steps`]
      : [
          `${[...unchanged].filter((key) => !changedKeys.has(key)).length} other scores unchanged on every step`,
        ]),
  ];
  if (rows.length === 0) return notes.join('\n');
  const table = fitColumns(
    [['CONDITION', 'SCORE', 'CHANGED', 'MEAN BEFORE', 'MEAN AFTER'], ...rows],
    width,
    2,
  );
  return `${table}\n${notes.join('\n')}`;
}
