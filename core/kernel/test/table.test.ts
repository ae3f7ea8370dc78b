import { formatTable } from '@longhaul/core';
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
