import type { ProjectReport } from '@longhaul/metrics';
import type { SlopGuardOptions } from './options.js';

export interface TurnQuality {
  turn: number;
  /** Null where the workspace had nothing to measure them over (no callables, no code). */
  erosion: number | null;
  verbosity: number | null;
  cloneRatio: number | null;
  maxCc: number | null;
  loc: number;
}

export function qualityOf(turn: number, report: ProjectReport): TurnQuality {
  const s = report.summary;
  return {
    turn,
    erosion: s.erosion,
    verbosity: s.verbosity,
    cloneRatio: s.clone_ratio,
    maxCc: s.max_cc,
    loc: s.loc,
  };
}

/**
 * The worst offenders of a quality report as a brief for the next turn: the highest-mass
 * callables, the largest clone groups, and the erosion score when it rose since the last turn.
 */
export function renderBrief(
  report: ProjectReport,
  previous: TurnQuality | undefined,
  options: SlopGuardOptions,
): string | undefined {
  const lines: string[] = [];
  const callables = [...report.callables]
    .filter((callable) => callable.depth === 0)
    .sort((a, b) => b.mass - a.mass)
    .slice(0, options.callables);
  if (callables.length)
    lines.push(
      'Largest functions (mass = size weighted by complexity):',
      ...callables.map(
        (c) =>
          `- ${c.qualifiedName} in ${c.file}:${c.startLine}-${c.endLine}: ${c.sloc} lines, complexity ${c.cc}, mass ${Math.round(c.mass)}`,
      ),
    );
  const clones = [...report.clones]
    .map((group) => ({ group, lines: group.reduce((sum, c) => sum + c.endLine - c.startLine + 1, 0) }))
    .sort((a, b) => b.lines - a.lines)
    .slice(0, options.clones);
  if (clones.length)
    lines.push(
      'Duplicated code:',
      ...clones.map(
        ({ group }) => `- ${group.map((c) => `${c.file}:${c.startLine}-${c.endLine}`).join(' ≈ ')}`,
      ),
    );
  const erosion = report.summary.erosion;
  // A rise needs two measurements: the first callables of a workspace raise nothing.
  if (previous?.erosion != null && erosion !== null && erosion - previous.erosion > options.erosionRise)
    lines.push(
      `Structural erosion rose from ${previous.erosion.toFixed(3)} to ${erosion.toFixed(3)} in the last turn: complexity is concentrating in a few functions.`,
    );
  if (lines.length === 0) return undefined;
  return [
    '## Code health after the previous turn',
    '',
    ...lines,
    '',
    'While you work on the request, prefer splitting or reusing these over adding to them, and remove duplication you touch.',
  ].join('\n');
}
