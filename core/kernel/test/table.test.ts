import { formatTable, textTable } from '@longhaul/core';
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

describe('textTable', () => {
  it('keeps each cell under its column, even when two columns share a label', () => {
    const figure = textTable('t', 'Title', ['condition', 'x', 'x'], [['a', '1', '2']]);
    expect(figure.columns.map((column) => column.label)).toEqual(['condition', 'x', 'x']);
    expect(figure.rows.map((row) => figure.columns.map((column) => row[column.key]))).toEqual([
      ['a', '1', '2'],
    ]);
  });
});
