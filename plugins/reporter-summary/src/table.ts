import { formatTable as layOut } from '@longhaul/core';
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
