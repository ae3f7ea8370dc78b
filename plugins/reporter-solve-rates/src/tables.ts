import type { TextGrid } from '@longhaul/core';
import { fixed, percent, plusMinus, type Row } from './format.js';

export const phases = ['Start', 'Early', 'Mid', 'Late', 'Final'];

/** The paper's Table 1: one row per condition. */
export function table1(rows: Map<string, Row>): TextGrid {
  const header = [
    'condition',
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
  const cells = [...rows].map(([condition, row]) => [
    condition,
    percent(row.strict),
    percent(row.iso),
    percent(row.core),
    percent(row.partial),
    plusMinus(row, 'cost', 2),
    fixed(row['cost.net'], 2),
    plusMinus(row, 'minutes', 1),
    plusMinus(row, 'erosion', 3),
    plusMinus(row, 'verbosity', 3),
  ]);
  return { header, cells };
}

/** Per condition and progress phase: solve rates, cost and quality. */
export function phaseTable(rows: Map<string, Row>): TextGrid {
  const header = ['condition', 'phase', 'CKPTs', 'Strict', 'Iso.', 'Core', '$/CKPT', 'Erosion', 'Verbosity'];
  const cells: string[][] = [];
  for (const [condition, row] of rows) {
    for (const phase of phases) {
      const count = row[`phase.${phase}.checkpoints`];
      if (typeof count !== 'number' || count === 0) continue;
      cells.push([
        condition,
        phase,
        String(count),
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
export function trajectoryTable(rows: Map<string, Row>): TextGrid {
  const header = [
    'condition',
    'problems',
    'CKPTs produced',
    'CKPTs planned',
    'Full',
    'Erosion rises',
    'Verbosity rises',
  ];
  const cells = [...rows].map(([condition, row]) => [
    condition,
    fixed(row.problems, 0),
    fixed(row['checkpoints.produced'], 0),
    fixed(row['checkpoints.all'], 0),
    percent(row.full),
    percent(row['erosion.rises']),
    percent(row['verbosity.rises']),
  ]);
  return { header, cells };
}
