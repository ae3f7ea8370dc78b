import type { RunModel } from './model.js';

/** How many differences of one run against the first are listed before `and N more`. */
const listed = 8;

/** A value as a short line: JSON cut to a length a sentence can hold. */
function shown(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** Leaves of a resolved experiment by path (`harness[1].options.model`); arrays of scalars stay whole. */
function leaves(value: unknown, path = '', into = new Map<string, unknown>()): Map<string, unknown> {
  if (Array.isArray(value) && value.some((item) => item !== null && typeof item === 'object'))
    for (const [i, item] of value.entries()) leaves(item, `${path}[${i}]`, into);
  else if (value !== null && typeof value === 'object' && !Array.isArray(value))
    for (const [key, item] of Object.entries(value)) leaves(item, path ? `${path}.${key}` : key, into);
  else into.set(path, value);
  return into;
}

// Where the experiment file sat: not a difference in what was run.
const ignored = new Set(['baseDir']);

/**
 * What differs between the runs, first line first: each later run's experiment (as resolved,
 * experiment.yaml) against the first run's, key by key, and the scores one run has and another
 * lacks (a scorer added by `regrade`, or by the experiment).
 */
export function whatChanged(runs: RunModel[]): string[] {
  const [first, ...others] = runs as [RunModel, ...RunModel[]];
  const lines: string[] = [];
  const base = first.experiment === undefined ? undefined : leaves(first.experiment);
  for (const run of others) {
    if (base === undefined || run.experiment === undefined) {
      const lacking = [first, run].filter((r) => r.experiment === undefined).map((r) => r.name);
      lines.push(`${lacking.join(' and ')}: no experiment.yaml, so what changed cannot be said`);
      continue;
    }
    const own = leaves(run.experiment);
    const paths = [...new Set([...base.keys(), ...own.keys()])].filter(
      (path) => !ignored.has(path) && JSON.stringify(base.get(path)) !== JSON.stringify(own.get(path)),
    );
    if (paths.length === 0) lines.push(`${first.name} → ${run.name}: the same experiment as resolved`);
    else
      lines.push(
        `${first.name} → ${run.name}: ${paths
          .slice(0, listed)
          .map((path) => `${path} ${shown(base.get(path))} → ${shown(own.get(path))}`)
          .join('; ')}${paths.length > listed ? `; and ${paths.length - listed} more` : ''}`,
      );
  }
  const keysOf = (run: RunModel) => new Set(run.scoreKeys);
  for (const run of runs) {
    const mine = [...keysOf(run)].filter((key) =>
      runs.some((other) => other !== run && !keysOf(other).has(key)),
    );
    if (mine.length > 0)
      lines.push(
        `scores ${run.name} has and another run lacks: ${mine.slice(0, listed).join(', ')}${mine.length > listed ? `, and ${mine.length - listed} more` : ''}`,
      );
  }
  return lines;
}
