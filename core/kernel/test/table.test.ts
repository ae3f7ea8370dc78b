import { formatTable, formatTableWithin, textTable } from '@longhaul/core';
import { describe, expect, it } from 'vitest';

describe('formatTable', () => {
  it('pads labels to the left and figures to the right', () => {
    expect(
      formatTable(
        ['condition', 'strict'],
        [
          ['a', '100.0%'],
          ['longer-name', '5.0%'],
        ],
      ),
    ).toBe(['condition    strict', 'a            100.0%', 'longer-name    5.0%'].join('\n'));
  });
});

describe('formatTableWithin', () => {
  const header = ['condition', 'strict', 'iso', 'tool-use.calls'];
  const rows = [
    ['agent', '50.0%', '75.0%', '12.5'],
    ['oracle', '100.0%', '100.0%', '0'],
  ];

  it('keeps one table when it fits, or when there is no width (a pipe)', () => {
    expect(formatTableWithin(header, rows, 80)).toBe(formatTable(header, rows));
    expect(formatTableWithin(header, rows, undefined)).toBe(formatTable(header, rows));
  });

  it('splits a wider table into tables that fit, each starting with the row labels', () => {
    const text = formatTableWithin(header, rows, 30);
    expect(text).toBe(
      [
        'condition  strict     iso',
        'agent       50.0%   75.0%',
        'oracle     100.0%  100.0%',
        '',
        'condition  tool-use.calls',
        'agent                12.5',
        'oracle                  0',
      ].join('\n'),
    );
    expect(text.split('\n').every((line) => line.length <= 30)).toBe(true);
  });

  it('gives a column wider than the width a table of its own rather than dropping it', () => {
    const text = formatTableWithin(header, rows, 12);
    expect(text.split('\n\n').map((table) => table.split('\n')[0])).toEqual([
      'condition  strict',
      'condition     iso',
      'condition  tool-use.calls',
    ]);
  });
});

describe('textTable', () => {
  it('keeps each cell under its column, even when two columns share a label', () => {
    const figure = textTable('t', 'Title', ['condition', 'x', 'x'], [['a', '1', '2']]);
    expect(figure.columns.map((column) => column.label)).toEqual(['condition', 'x', 'x']);
    expect(figure.rows.map((row) => figure.columns.map((column) => row[column.key]))).toEqual([
      ['a', '1', '2'],
    ]);
  });
});
