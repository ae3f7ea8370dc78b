import { ConfigError } from '@longhaul/core';

/** Quadratic-weighted Cohen's κ of two raters over ordinal levels 0..levels-1. */
export function quadraticKappa(a: readonly number[], b: readonly number[], levels = 5): number | null {
  const n = a.length;
  if (n === 0 || n !== b.length) return null;
  const observed = Array.from({ length: levels }, () => new Array<number>(levels).fill(0));
  const rowTotals = new Array<number>(levels).fill(0);
  const colTotals = new Array<number>(levels).fill(0);
  for (let i = 0; i < n; i++) {
    observed[a[i]!]![b[i]!]!++;
    rowTotals[a[i]!]!++;
    colTotals[b[i]!]!++;
  }
  let disagreement = 0;
  let expected = 0;
  const scale = (levels - 1) ** 2;
  for (let i = 0; i < levels; i++)
    for (let j = 0; j < levels; j++) {
      const weight = (i - j) ** 2 / scale;
      disagreement += weight * observed[i]![j]!;
      expected += (weight * rowTotals[i]! * colTotals[j]!) / n;
    }
  return expected === 0 ? (disagreement === 0 ? 1 : null) : 1 - disagreement / expected;
}

/** Cohen's κ of two binary ratings (level == k or not): agreement on one rubric level. */
function binaryKappa(a: readonly boolean[], b: readonly boolean[]): number | null {
  const n = a.length;
  if (n === 0) return null;
  const agree = a.filter((value, i) => value === b[i]).length / n;
  const pa = a.filter(Boolean).length / n;
  const pb = b.filter(Boolean).length / n;
  const chance = pa * pb + (1 - pa) * (1 - pb);
  return chance === 1 ? (agree === 1 ? 1 : null) : (agree - chance) / (1 - chance);
}

function ranks(values: readonly number[]): number[] {
  const order = values.map((value, index) => ({ value, index })).sort((x, y) => x.value - y.value);
  const out = new Array<number>(values.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]!.value === order[i]!.value) j++;
    for (let k = i; k <= j; k++) out[order[k]!.index] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return out;
}

/** Spearman's ρ (Pearson correlation of average ranks). */
export function spearman(a: readonly number[], b: readonly number[]): number | null {
  const ra = ranks(a);
  const rb = ranks(b);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const ma = mean(ra);
  const mb = mean(rb);
  let cov = 0;
  let va = 0;
  let vb = 0;
  for (let i = 0; i < ra.length; i++) {
    cov += (ra[i]! - ma) * (rb[i]! - mb);
    va += (ra[i]! - ma) ** 2;
    vb += (rb[i]! - mb) ** 2;
  }
  return va === 0 || vb === 0 ? null : cov / Math.sqrt(va * vb);
}

export interface Agreement {
  pairs: number;
  kappa: number | null;
  exact: number;
  withinOne: number;
  spearman: number | null;
  /** Pairs where one rater says 2 and the other 3 (or 3 and 4), over all pairs. */
  boundary23: number;
  boundary34: number;
  /** Per rubric level, Cohen's κ of "scored this level" between the raters. */
  perLevel: { level: number; kappa: number | null; support: number }[];
  /** Judge 0 while the human gives more (bounded search missing code). */
  falseAbsence: number;
}

/** Agreement between a reference rater (a human) and another (the judge). */
export function agreement(reference: readonly number[], other: readonly number[]): Agreement {
  const n = reference.length;
  const share = (test: (a: number, b: number) => boolean) =>
    n ? reference.filter((a, i) => test(a, other[i]!)).length / n : 0;
  const pair = (x: number, y: number) => (a: number, b: number) =>
    (a === x && b === y) || (a === y && b === x);
  return {
    pairs: n,
    kappa: quadraticKappa(reference, other),
    exact: share((a, b) => a === b),
    withinOne: share((a, b) => Math.abs(a - b) <= 1),
    spearman: spearman(reference, other),
    boundary23: share(pair(2, 3)),
    boundary34: share(pair(3, 4)),
    perLevel: [0, 1, 2, 3, 4].map((level) => ({
      level,
      kappa: binaryKappa(
        reference.map((a) => a === level),
        other.map((b) => b === level),
      ),
      support: reference.filter((a) => a === level).length,
    })),
    falseAbsence: reference.filter((a, i) => a > 0 && other[i] === 0).length,
  };
}

export interface LabelTable {
  /** Column name → scores, in row order. */
  raters: Record<string, number[]>;
  rows: number;
}

/**
 * Reads a CSV of labels: a header row, then one row per component-run pair; every column but
 * the identifying ones (`id`, `task`, `component`, `condition`, `run`, `trial`) is a rater whose
 * cells are rubric scores 0–4. Errors name the file, line and column.
 */
export function parseLabels(text: string, file: string): LabelTable {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (lines.length < 2)
    throw new ConfigError([{ file, message: 'expected a header row and at least one row of labels' }]);
  const header = lines[0]!.split(',').map((cell) => cell.trim());
  const identifying = new Set(['id', 'task', 'component', 'condition', 'run', 'trial']);
  const columns = header
    .map((name, index) => ({ name, index }))
    .filter((c) => !identifying.has(c.name.toLowerCase()));
  if (columns.length < 2)
    throw new ConfigError([
      {
        file,
        message: `need at least two rater columns besides ${[...identifying].join(', ')}; found ${columns.map((c) => c.name).join(', ') || 'none'}`,
      },
    ]);
  const raters: Record<string, number[]> = Object.fromEntries(columns.map((c) => [c.name, []]));
  const issues = [];
  for (const [offset, line] of lines.slice(1).entries()) {
    const cells = line.split(',').map((cell) => cell.trim());
    for (const column of columns) {
      const cell = cells[column.index] ?? '';
      const value = Number(cell);
      if (cell === '' || !Number.isInteger(value) || value < 0 || value > 4)
        issues.push({
          file,
          line: offset + 2,
          column: column.index + 1,
          key: column.name,
          message: `expected a rubric score 0–4, found '${cell}'`,
        });
      else raters[column.name]!.push(value);
    }
  }
  if (issues.length) throw new ConfigError(issues);
  return { raters, rows: lines.length - 1 };
}
