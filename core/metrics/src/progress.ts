export const phases = ['Start', 'Early', 'Mid', 'Late', 'Final'] as const;
export type Phase = (typeof phases)[number];

/**
 * SlopCodeBench's progress phases for n steps: the first is Start, the last Final, and the
 * interior ones split into Early, Mid and Late, the earlier groups taking one extra when the
 * count does not divide evenly.
 */
export function progressPhases(n: number): Phase[] {
  if (n <= 0) return [];
  if (n === 1) return ['Start'];
  const interior = n - 2;
  const base = Math.floor(interior / 3);
  const rest = interior % 3;
  const sizes = [base + (rest >= 1 ? 1 : 0), base + (rest >= 2 ? 1 : 0), base];
  const result: Phase[] = ['Start'];
  (['Early', 'Mid', 'Late'] as const).forEach((phase, index) => {
    for (let i = 0; i < sizes[index]!; i++) result.push(phase);
  });
  result.push('Final');
  return result;
}

/** Normalized progress of step i of n, in [0, 1]. */
export function progressOf(index: number, n: number): number {
  return n <= 1 ? 1 : index / (n - 1);
}

/** Up to `count` indices of `total`, evenly spread, always keeping the first and the last. */
export function spread(total: number, count: number): number[] {
  if (total <= count) return Array.from({ length: total }, (_, i) => i);
  if (count === 1) return [total - 1];
  const picked = new Set<number>();
  for (let i = 0; i < count; i++) picked.add(Math.round((i * (total - 1)) / (count - 1)));
  return [...picked].sort((a, b) => a - b);
}
