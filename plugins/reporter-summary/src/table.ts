import { formatTableWithin, formatTable as layOut, type TableFigure } from '@longhaul/core';
import { scoreCells } from './score-columns.js';
import type { ConditionSummary, ExperimentScoreSummary, RunSummary } from './summary.js';

function percent(rate: number | null): string {
  // A rate nothing measured (no solve scorer, no scored step) is a dash, never 0.0%.
  return rate === null ? '–' : `${(rate * 100).toFixed(1)}%`;
}

export function formatDuration(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const whole = Math.round(seconds);
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, '0');
  return hours > 0 ? `${hours}h ${String(minutes).padStart(2, '0')}m ${rest}s` : `${minutes}m ${rest}s`;
}

function duration(ms: number | null): string {
  return ms === null ? '–' : formatDuration(ms);
}

const count = (value: number | null) => (value === null ? '–' : String(value));

/**
 * Counts of scored steps that call for a look beside the solve rates, each shown when some
 * condition has it measured: steps where most tool calls failed, steps with tamper signals.
 */
export interface FlagColumn {
  key: string;
  label: string;
  value(condition: ConditionSummary): number | null;
}

export function flagColumns(conditions: ConditionSummary[]): FlagColumn[] {
  const all: FlagColumn[] = [
    { key: 'toolFailures', label: 'tools failed', value: (condition) => condition.toolFailures ?? null },
    { key: 'tampered', label: 'tamper', value: (condition) => condition.tampered ?? null },
  ];
  return all.filter((flag) => conditions.some((condition) => flag.value(condition) !== null));
}

/**
 * The per-condition table printed at the end of a run: counts, solve rates, the means of the
 * `scores` given, cost and times, split to fit `width` when given. "trial time" sums the trials'
 * durations; "wall" is how long at least one of them ran, shorter when trials ran side by side.
 */
export function formatTable(conditions: ConditionSummary[], scores: string[] = [], width?: number): string {
  const flags = flagColumns(conditions);
  const header = [
    'condition',
    'trials',
    'steps',
    'scored',
    'errored',
    'cancelled',
    'strict',
    'iso',
    'core',
    ...flags.map((flag) => flag.label),
    ...scores,
    'cost',
    'trial time',
    'wall',
  ];
  const means = scores.map((key) => scoreCells(conditions, key));
  const rows = conditions.map((condition, row) => [
    condition.condition,
    String(condition.trials),
    String(condition.steps),
    String(condition.scored),
    String(condition.errored),
    String(condition.cancelled),
    percent(condition.solveRates.strict),
    percent(condition.solveRates.iso),
    percent(condition.solveRates.core),
    ...flags.map((flag) => count(flag.value(condition))),
    ...means.map((cells) => cells[row]!),
    `$${condition.costUsd.toFixed(2)}`,
    formatDuration(condition.durationMs),
    duration(condition.wallMs),
  ]);
  return formatTableWithin(header, rows, width);
}

/** The run's times under the table: its wall time and its trials' time summed, each labelled. */
export function formatTimes(summary: RunSummary): string {
  return `wall time ${duration(summary.wallMs)}; trial time ${formatDuration(summary.durationMs)} (the trials' durations summed)`;
}

const passAtKey = /^(?<scorer>.+)\.pass_at_(?<k>\d+)$/;

/**
 * pass@k per condition with its Wilson 95% interval, from the experiment scores of a pass-at-k
 * scorer (`<label>.pass_at_<k>` and its `.wilson_low` / `.wilson_high`); undefined without one.
 */
export function formatPassAtK(scores: ExperimentScoreSummary[]): string | undefined {
  const value = new Map(scores.map((score) => [`${score.condition}\u0000${score.key}`, score.value]));
  const found = scores.flatMap((score) => {
    const match = passAtKey.exec(score.key);
    return match?.groups && score.condition !== null ? [{ key: score.key, k: Number(match.groups.k) }] : [];
  });
  if (found.length === 0) return undefined;
  const keys = [...new Map(found.map((item) => [item.key, item.k])).entries()].sort((a, b) => a[1] - b[1]);
  const conditions = [...new Set(scores.filter((s) => s.condition !== null).map((s) => s.condition!))];
  const cell = (condition: string, key: string) => {
    const at = (suffix: string) => value.get(`${condition}\u0000${key}${suffix}`);
    const rate = at('');
    if (typeof rate !== 'number') return '–';
    // An interval over one task says nothing: its n is printed instead.
    const tasks = value.get(`${condition}\u0000${passAtKey.exec(key)!.groups!.scorer}.tasks`);
    if (typeof tasks === 'number' && tasks < 2) return `${percent(rate)} n=${tasks}`;
    const low = at('.wilson_low');
    const high = at('.wilson_high');
    const interval =
      typeof low === 'number' && typeof high === 'number' ? ` [${percent(low)}, ${percent(high)}]` : '';
    return `${percent(rate)}${interval}`;
  };
  const header = [
    'condition',
    ...keys.map(([key, k]) => (keys.filter(([, other]) => other === k).length > 1 ? key : `pass@${k}`)),
  ];
  const rows = conditions.map((condition) => [condition, ...keys.map(([key]) => cell(condition, key))]);
  return `${layOut(header, rows)}\n(pass@k with Wilson 95% intervals; n=1 where one task stands behind it)`;
}

/** The same table as data for the HTML report: raw values, formatted by the report. */
export function conditionTable(conditions: ConditionSummary[], scores: string[] = []): TableFigure {
  return {
    kind: 'table',
    id: 'conditions',
    title: 'Solve rates, cost and time per condition',
    columns: [
      { key: 'condition', label: 'condition', format: 'text' },
      { key: 'trials', label: 'trials', format: 'number', digits: 0 },
      { key: 'steps', label: 'steps', format: 'number', digits: 0 },
      { key: 'scored', label: 'scored', format: 'number', digits: 0 },
      { key: 'errored', label: 'errored', format: 'number', digits: 0 },
      { key: 'cancelled', label: 'cancelled', format: 'number', digits: 0 },
      { key: 'strict', label: 'strict', format: 'percent', digits: 1 },
      { key: 'iso', label: 'iso', format: 'percent', digits: 1 },
      { key: 'core', label: 'core', format: 'percent', digits: 1 },
      ...flagColumns(conditions).map((flag) => ({
        key: flag.key,
        label: flag.label,
        format: 'number' as const,
        digits: 0,
      })),
      ...scores.map((key) => ({ key: `score:${key}`, label: key, format: 'number' as const, digits: 3 })),
      { key: 'costUsd', label: 'cost', format: 'usd', digits: 2 },
      { key: 'durationMs', label: 'trial time', format: 'duration' },
      { key: 'wallMs', label: 'wall', format: 'duration' },
    ],
    rows: conditions.map((condition) => ({
      condition: condition.condition,
      trials: condition.trials,
      steps: condition.steps,
      scored: condition.scored,
      errored: condition.errored,
      cancelled: condition.cancelled,
      strict: condition.solveRates.strict,
      iso: condition.solveRates.iso,
      core: condition.solveRates.core,
      ...Object.fromEntries(flagColumns(conditions).map((flag) => [flag.key, flag.value(condition)])),
      ...Object.fromEntries(scores.map((key) => [`score:${key}`, condition.scores[key] ?? null])),
      costUsd: condition.costUsd,
      durationMs: condition.durationMs,
      wallMs: condition.wallMs,
    })),
  };
}
