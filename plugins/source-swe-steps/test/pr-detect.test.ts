import { describe, expect, it } from 'vitest';
import { detectPr } from '../src/index.js';

describe('detectPr', () => {
  it('reads a squash merge titled "Title (#N)" with its body', () => {
    expect(
      detectPr('Group thousands when formatting amounts (#8)\n\nformat_amount writes 1,234.50.\n'),
    ).toEqual({
      number: 8,
      title: 'Group thousands when formatting amounts',
      body: 'format_amount writes 1,234.50.',
      style: 'squash',
    });
  });

  it('reads a merge commit "Merge pull request #N from owner/branch" with the title from its body', () => {
    expect(
      detectPr('Merge pull request #2 from alice/balance\n\nAdd Ledger.balance\n\nMore words.\n'),
    ).toEqual({
      number: 2,
      title: 'Add Ledger.balance',
      body: 'More words.',
      style: 'merge',
    });
  });

  it('a merge commit without a body keeps its subject as the title', () => {
    expect(detectPr('Merge pull request #31 from someone/fix-typo')?.title).toBe(
      'Merge pull request #31 from someone/fix-typo',
    );
  });

  it('is not fooled by issue references or direct commits', () => {
    expect(detectPr('Release 0.2.0\n')).toBeUndefined();
    expect(detectPr('Fix #12 in the parser\n')).toBeUndefined();
    expect(detectPr('Mention (#12) in the middle of a subject\n')).toBeUndefined();
    expect(detectPr("Merge branch 'main' into feature\n")).toBeUndefined();
    expect(detectPr('Subject\n\nBody ends with (#4)\n')).toBeUndefined();
  });
});
