/** SlopCodeBench's progress phases, in order. */
export const phases = ['Start', 'Early', 'Mid', 'Late', 'Final'] as const;
export type Phase = (typeof phases)[number];

/**
 * The phase of checkpoint `index` (0-based) of `count`: the first is Start, the last Final, and
 * the ones between are split into Early, Mid and Late, the earlier groups taking one extra when
 * the count does not divide by three.
 */
export function phaseOf(index: number, count: number): Phase {
  if (index === 0) return 'Start';
  if (index === count - 1) return 'Final';
  const interior = count - 2;
  const base = Math.floor(interior / 3);
  const rest = interior % 3;
  const early = base + (rest >= 1 ? 1 : 0);
  const mid = base + (rest >= 2 ? 1 : 0);
  const position = index - 1;
  if (position < early) return 'Early';
  return position < early + mid ? 'Mid' : 'Late';
}
