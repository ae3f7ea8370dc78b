import { formatTable as layOut, type TableFigure } from '@longhaul/core';
import type { ConditionSummary } from './summary.js';

function percent(rate: number | null): string {
  // A rate the experiment did not measure (no solve scorer) is a dash, never 0.0%.
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

/** The per-condition table printed at the end of a run. */
export function formatTable(conditions: ConditionSummary[]): string {
  const header = ['condition', 'trials', 'steps', 'strict', 'iso', 'core', 'cost', 'time'];
  const rows = conditions.map((condition) => [
    condition.condition,
    String(condition.trials),
    String(condition.steps),
    percent(condition.solveRates.strict),
    percent(condition.solveRates.iso),
    percent(condition.solveRates.core),
    `$${condition.costUsd.toFixed(2)}`,
    formatDuration(condition.durationMs),
  ]);
  return layOut(header, rows);
}

/** The same table as data for the HTML report: raw values, formatted by the report. */
export function conditionTable(conditions: ConditionSummary[]): TableFigure {
  return {
    kind: 'table',
    id: 'conditions',
    title: 'Solve rates, cost and time per condition',
    columns: [
      { key: 'condition', label: 'condition', format: 'text' },
      { key: 'trials', label: 'trials', format: 'number', digits: 0 },
      { key: 'steps', label: 'steps', format: 'number', digits: 0 },
      { key: 'strict', label: 'strict', format: 'percent', digits: 1 },
      { key: 'iso', label: 'iso', format: 'percent', digits: 1 },
      { key: 'core', label: 'core', format: 'percent', digits: 1 },
      { key: 'costUsd', label: 'cost', format: 'usd', digits: 2 },
      { key: 'durationMs', label: 'time', format: 'duration' },
    ],
    rows: conditions.map((condition) => ({
      condition: condition.condition,
      trials: condition.trials,
      steps: condition.steps,
      strict: condition.solveRates.strict,
      iso: condition.solveRates.iso,
      core: condition.solveRates.core,
      costUsd: condition.costUsd,
      durationMs: condition.durationMs,
    })),
  };
}
