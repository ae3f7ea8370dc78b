import { noValue } from '@longhaul/core';

export type Row = Record<string, number | boolean | null>;

// A value nothing scored stands behind is a dash, never 0 (the legend under the tables says so).
export function percent(value: number | boolean | null | undefined): string {
  return typeof value === 'number' ? (value * 100).toFixed(1) : noValue;
}

export function fixed(value: number | boolean | null | undefined, digits: number): string {
  return typeof value === 'number' ? value.toFixed(digits) : noValue;
}

export function plusMinus(row: Row, metric: string, digits: number): string {
  const average = row[`${metric}.mean`];
  if (typeof average !== 'number') return noValue;
  return `${average.toFixed(digits)}±${fixed(row[`${metric}.std`], digits)}`;
}
