/** Chen et al.'s unbiased pass@k from n attempts of which c passed: 1 - C(n-c, k) / C(n, k). */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n) throw new Error(`pass@${k} needs at least ${k} attempts (got ${n})`);
  if (n - c < k) return 1;
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

/** Wilson score 95% interval of a proportion p over n (the paper's Table 1 half-widths). */
export function wilson(p: number, n: number, z = 1.96): { low: number; high: number; halfWidth: number } {
  if (n === 0) return { low: 0, high: 1, halfWidth: 0.5 };
  const z2 = z * z;
  const center = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, center - half), high: Math.min(1, center + half), halfWidth: half };
}

/** Wald (normal) 95% half-width (the paper's Table 12). */
export function wald(p: number, n: number, z = 1.96): number {
  return n === 0 ? 0 : z * Math.sqrt((p * (1 - p)) / n);
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * Population variance. What is left of rounding is 0, not a tiny positive number: the mean of
 * [0.1, 0.1, 0.1] is 0.10000000000000002, and a naive variance of ~1e-34 would make ratios over
 * it (reliability = between / within) come out as 1e31 instead of undefined.
 */
export function variance(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const m = mean(values);
  const raw = mean(values.map((v) => (v - m) ** 2));
  const scale = values.reduce((max, v) => Math.max(max, Math.abs(v)), 0);
  // Each deviation carries at most a few ulps of the values' magnitude from computing the mean.
  const rounding = (values.length * Number.EPSILON * scale) ** 2;
  return raw <= rounding ? 0 : raw;
}

/**
 * Consistency over tasks × attempts of a per-attempt value y: σ (mean per-task std), the
 * between-task variance of task means, the mean within-task variance, ICC and R (appendix A.4).
 */
export function consistency(byTask: readonly (readonly number[])[]): {
  sigma: number;
  between: number;
  within: number;
  icc: number | null;
  reliability: number | null;
} {
  const tasks = byTask.filter((values) => values.length > 0);
  const between = variance(tasks.map(mean));
  const within = mean(tasks.map(variance));
  const total = between + within;
  return {
    sigma: mean(tasks.map((values) => Math.sqrt(variance(values)))),
    between,
    within,
    icc: total > 0 ? between / total : null,
    reliability: within > 0 ? between / within : null,
  };
}
