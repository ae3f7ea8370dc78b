import { missingCell, noValue, type ScoreValue, type TextGrid } from '@longhaul/core';
import type { ConditionRow, Curves } from './rows.js';

const grid = (header: string[], cells: string[][]): TextGrid => ({ header, cells });

// '–': no value, nothing scored stands behind it (not 0); 'missing': no task of the condition there.
const fixed = (value: ScoreValue | undefined, digits = 2) =>
  typeof value === 'number' ? value.toFixed(digits) : noValue;
const signed = (value: ScoreValue | undefined) =>
  typeof value === 'number' ? `${value >= 0 ? '+' : ''}${value.toFixed(2)}` : noValue;
const count = (value: ScoreValue | undefined) => (typeof value === 'number' ? String(value) : noValue);

const repositoriesOf = (rows: ConditionRow[]) =>
  [...new Set(rows.flatMap((row) => Object.keys(row.repositories)))].sort();

/**
 * What `PRs not judged` means, under Table 3 whenever a condition has some: a researcher reading
 * PR success must know it leaves them out, and why they exist.
 */
export const notJudgedLegend =
  'PRs not judged: scored PRs with no F2P test left to judge them on (in PRD, later commits of the chain rewrote the module of every one), neither passed nor failed; PR success % and tasks completed are over judged PRs, and a task with no PR judged counts under tasks not judged.';

/** Whether any condition has PRs not judged. */
export const anyNotJudged = (rows: ConditionRow[]) =>
  rows.some((row) => typeof row.values.prs_not_judged === 'number' && row.values.prs_not_judged > 0);

/**
 * Table 3: PRs passed of the scored and judged ones, PRs not judged, errored and cancelled PRs
 * beside them, PR success % (over judged PRs), tasks completed of the whole tasks, tasks not
 * judged and $ per task, then the per-repository cells. Scores written before these counts
 * existed have none: `–`.
 */
export function successTable(rows: ConditionRow[]): TextGrid {
  const repositories = repositoriesOf(rows);
  return grid(
    [
      'condition',
      'setting',
      ...repositories,
      'PRs passed',
      'PRs not judged',
      'PRs errored',
      'PRs cancelled',
      'PR success %',
      'tasks completed',
      'tasks not judged',
      '$/task',
    ],
    rows.map((row) => [
      row.condition,
      row.setting,
      ...repositories.map((repo) => {
        const cell = row.repositories[repo];
        return cell
          ? `${cell.prs_passed}/${cell.prs},${cell.tasks_completed}/${cell.tasks_whole ?? cell.tasks}`
          : missingCell;
      }),
      `${row.values.prs_passed ?? 0}/${row.values.prs ?? 0}`,
      count(row.values.prs_not_judged),
      count(row.values.prs_errored),
      count(row.values.prs_cancelled),
      fixed(row.values.pr_success),
      `${row.values.tasks_completed ?? 0}/${row.values.tasks_whole ?? row.values.tasks ?? 0}`,
      count(row.values.tasks_not_judged),
      fixed(row.values.usd_per_task),
    ]),
  );
}

/** Table 8: P2P % / F2P % per repository, and the averages pooled over tests. */
export function testsTable(rows: ConditionRow[]): TextGrid {
  const repositories = repositoriesOf(rows);
  return grid(
    ['condition', ...repositories, 'P2P avg', 'F2P avg'],
    rows.map((row) => [
      row.condition,
      ...repositories.map((repo) => {
        const cell = row.repositories[repo];
        return cell ? `${fixed(cell.p2p)}/${fixed(cell.f2p)}` : missingCell;
      }),
      fixed(row.values.p2p),
      fixed(row.values.f2p),
    ]),
  );
}

/** How much the individual setting overstates PR success, in points. */
export function inflationTable(rows: ConditionRow[]): TextGrid | undefined {
  const individual = rows.filter((row) => 'inflation_global' in row.values || 'inflation_prd' in row.values);
  if (individual.length === 0) return undefined;
  return grid(
    ['condition', 'individual − global', 'individual − PRD'],
    individual.map((row) => [
      row.condition,
      signed(row.values.inflation_global),
      signed(row.values.inflation_prd),
    ]),
  );
}

/** Success by chain length and by active suite size. */
export function binTable(rows: ConditionRow[], key: 'chainLength' | 'suiteSize'): TextGrid {
  const bins = [...new Set(rows.flatMap((row) => Object.keys(row[key])))].sort(
    (a, b) =>
      Number.parseInt(a.replace(/^>/, ''), 10) - Number.parseInt(b.replace(/^>/, ''), 10) ||
      a.length - b.length,
  );
  return grid(
    ['condition', ...bins],
    rows.map((row) => [
      row.condition,
      ...bins.map((bin) => {
        const cell = row[key][bin];
        return cell ? `${fixed(cell.pr_success, 1)} (${cell.passed}/${cell.prs})` : noValue;
      }),
    ]),
  );
}

/** Δ per progress bin for the agent and the gold trace, per repository and overall, and the slopes. */
export function healthTable(rows: ConditionRow[], measure: 'cognitive' | 'debt'): TextGrid | undefined {
  const withHealth = rows.filter((row) => row.health);
  if (withHealth.length === 0) return undefined;
  const bins = withHealth[0]!.health![measure].agent.length;
  const lines: string[][] = [];
  const slope = (series: (number | null)[]) =>
    series[0] == null || series.at(-1) == null ? null : series.at(-1)! - series[0]!;
  const add = (condition: string, repository: string, curves: Curves) => {
    for (const [series, values] of [
      ['agent', curves.agent],
      ['gold trace', curves.gold],
      ['agent − gold', curves.gap],
    ] as const) {
      lines.push([
        condition,
        repository,
        series,
        ...values.map((v) => fixed(v, 1)),
        fixed(slope([...values]), 1),
      ]);
    }
  };
  for (const row of withHealth) {
    const health = row.health!;
    for (const [repository, curves] of Object.entries(health.repositories))
      add(row.condition, repository, curves[measure]);
    add(row.condition, 'all', health[measure]);
  }
  return grid(
    [
      'condition',
      'repository',
      'series',
      ...Array.from({ length: bins }, (_, b) => `bin ${b + 1}`),
      'bin 1→5',
    ],
    lines,
  );
}
