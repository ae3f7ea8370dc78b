import { describe, expect, it } from 'vitest';
import { MineInputError, mine, windowBounds } from '../src/index.js';

describe('the window and bad mining input', () => {
  it('a bare date covers its whole UTC day', () => {
    expect(windowBounds('2025-01-01', '2025-01-31')).toEqual({
      start: Date.parse('2025-01-01T00:00:00Z'),
      end: Date.parse('2025-01-31T23:59:59.999Z'),
    });
    expect(windowBounds('2025-01-01T12:00:00+02:00', '2025-01-02').start).toBe(
      Date.parse('2025-01-01T10:00:00Z'),
    );
  });

  it('says what is wrong in one line, before touching Docker or the output', async () => {
    const base = { repo: '/nonexistent/repo', out: '/nonexistent/out', image: 'none' };
    await expect(mine({ ...base, since: 'soon', until: '2025-01-01' })).rejects.toThrow(
      new MineInputError('--since soon: not a date (use YYYY-MM-DD or an ISO 8601 time)'),
    );
    await expect(mine({ ...base, since: '2025-02-01', until: '2025-01-01' })).rejects.toThrow(
      '--until 2025-01-01 is before --since 2025-02-01',
    );
    await expect(mine({ ...base, since: '2025-01-01', until: '2025-02-01' })).rejects.toThrow(
      '/nonexistent/repo: no such repository or bundle',
    );
    await expect(
      mine({ ...base, since: '2025-01-01', until: '2025-02-01', repo: '.', minChain: 4, maxChain: 3 }),
    ).rejects.toThrow('chain lengths: need 1 <= --min-chain (4) <= --max-chain (3)');
  });
});
