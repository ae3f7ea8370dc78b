export type Row = Record<string, number | boolean | null>;

export function percent(value: number | boolean | null | undefined): string {
  return typeof value === 'number' ? (value * 100).toFixed(1) : '-';
}

export function fixed(value: number | boolean | null | undefined, digits: number): string {
  return typeof value === 'number' ? value.toFixed(digits) : '-';
}

export function plusMinus(row: Row, metric: string, digits: number): string {
  const average = row[`${metric}.mean`];
  if (typeof average !== 'number') return '-';
  return `${average.toFixed(digits)}±${fixed(row[`${metric}.std`], digits)}`;
}
