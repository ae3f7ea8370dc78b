import { missingCell, type TextGrid } from '@longhaul/core';
import { fixed, percent, plusMinus, type Row } from './format.js';

/** A condition of the run the scorer gave nothing for: every figure cell says so. */
const missingRow = (condition: string, columns: number) => [
  condition,
  ...Array(columns - 1).fill(missingCell),
];

export const phases = ['Start', 'Early', 'Mid', 'Late', 'Final'];

/** The paper's Table 1: one row per condition. */
export function table1(rows: Map<string, Row | undefined>): TextGrid {
  const header = [
    'condition',
    'scored',
    'errored',
    'cancelled',
    'Strict',
    'Iso.',
    'Core',
    'Partial',
    '$/CKPT',
    'Net $',
    'Min/CKPT',
    'Erosion',
    'Verbosity',
  ];
  const cells = [...rows].map(([condition, row]) =>
    row === undefined
      ? missingRow(condition, header.length)
      : [
          condition,
          fixed(row['checkpoints.scored'], 0),
          fixed(row['checkpoints.errored'], 0),
          fixed(row['checkpoints.cancelled'], 0),
          percent(row.strict),
          percent(row.iso),
          percent(row.core),
          percent(row.partial),
          plusMinus(row, 'cost', 2),
          fixed(row['cost.net'], 2),
          plusMinus(row, 'minutes', 1),
          plusMinus(row, 'erosion', 3),
          plusMinus(row, 'verbosity', 3),
        ],
  );
  return { header, cells };
}

/** Per condition and progress phase: solve rates, cost and quality. */
export function phaseTable(rows: Map<string, Row | undefined>): TextGrid {
  const header = [
    'condition',
    'phase',
    'CKPTs',
    'errored',
    'cancelled',
    'Strict',
    'Iso.',
    'Core',
    '$/CKPT',
    'Erosion',
    'Verbosity',
  ];
  const cells: string[][] = [];
  for (const [condition, row] of rows) {
    if (row === undefined) {
      cells.push(missingRow(condition, header.length));
      continue;
    }
    for (const phase of phases) {
      const count = row[`phase.${phase}.checkpoints`];
      const errored = row[`phase.${phase}.errored`];
      const cancelled = row[`phase.${phase}.cancelled`];
      const lost =
        (typeof errored === 'number' ? errored : 0) + (typeof cancelled === 'number' ? cancelled : 0);
      if ((typeof count !== 'number' || count === 0) && lost === 0) continue;
      cells.push([
        condition,
        phase,
        String(count ?? 0),
        fixed(errored, 0),
        fixed(cancelled, 0),
        percent(row[`phase.${phase}.strict`]),
        percent(row[`phase.${phase}.iso`]),
        percent(row[`phase.${phase}.core`]),
        fixed(row[`phase.${phase}.cost`], 2),
        fixed(row[`phase.${phase}.erosion`], 3),
        fixed(row[`phase.${phase}.verbosity`], 3),
      ]);
    }
  }
  return { header, cells };
}

/** Trajectory counts and the share whose erosion and verbosity rise from first to last checkpoint. */
export function trajectoryTable(rows: Map<string, Row | undefined>): TextGrid {
  const header = [
    'condition',
    'problems',
    'whole',
    'CKPTs produced',
    'CKPTs planned',
    'Full',
    'Erosion rises',
    'Verbosity rises',
  ];
  const cells = [...rows].map(([condition, row]) =>
    row === undefined
      ? missingRow(condition, header.length)
      : [
          condition,
          fixed(row.problems, 0),
          fixed(row['problems.scored'], 0),
          fixed(row['checkpoints.produced'], 0),
          fixed(row['checkpoints.all'], 0),
          percent(row.full),
          percent(row['erosion.rises']),
          percent(row['verbosity.rises']),
        ],
  );
  return { header, cells };
}
