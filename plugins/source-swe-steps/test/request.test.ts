import { describe, expect, it } from 'vitest';
import { type PrRecord, renderPrd, renderRequest, summarySentence } from '../src/index.js';

function record(overrides: Partial<PrRecord> = {}): PrRecord {
  return {
    commit_id: 'a'.repeat(40),
    parent_id: 'b'.repeat(40),
    pr_number: 8,
    prs: { number: 8, title: 'Group thousands', body: 'Use commas.', style: 'squash', issues: [] },
    merged_at: '2025-01-28T10:00:00Z',
    changed_files: ['ledger/money.py', 'tests/test_money.py'],
    test_files: ['tests/test_money.py'],
    changes: { added: [], modified: [], deleted: [] },
    pass_to_pass: [],
    fail_to_pass: ['tests/test_money.py::test_grouped'],
    fix_patch: '',
    test_patch: '',
    all_texts: { title: 'Group thousands', body: 'Use commas.', issues: [], docs: '' },
    status: 'validated',
    dropped_tests: [],
    ...overrides,
  };
}

const format = {
  file: 'ledger/money.py',
  kind: 'function' as const,
  name: 'format_amount',
  declaration: 'def format_amount(cents):',
  docstring: 'Format integer cents.',
};

describe('the change request', () => {
  it('has the sections with their fallbacks when there is no issue, no docs and no definitions', () => {
    const text = renderRequest(record());
    expect(text).toContain('### Task description\n\nGroup thousands\n\nUse commas.\n');
    expect(text).toContain('### Issue description\n\nNo linked issue describes this change.\n');
    expect(text).toContain('### Documentation changes\n\nThis change comes with no documentation changes.\n');
    expect(text).toContain('It adds no new function or class. It changes no existing function or class.');
    expect(text).not.toContain('Declaration:');
    expect(text.trim().endsWith('for the new behaviour to work.')).toBe(true);
    expect(text).not.toContain('tests/test_money.py');
  });

  it('lists linked issues, documentation and each definition block, files only with filepaths', () => {
    const pr = record({
      changes: {
        added: [{ ...format, name: 'parse_grouped', declaration: 'def parse_grouped(text):' }],
        modified: [format],
        deleted: [
          { ...format, name: 'legacy_round', docstring: undefined, declaration: 'def legacy_round(value):' },
        ],
      },
      all_texts: {
        title: 'Group thousands',
        body: '',
        issues: ['#22 Large amounts\n\nHard to read.'],
        docs: 'README.md:\nAmounts use commas.',
      },
    });
    const text = renderRequest(pr);
    expect(text).toContain('### Issue description\n\n#22 Large amounts\n\nHard to read.\n');
    expect(text).toContain('### Documentation changes\n\nREADME.md:\nAmounts use commas.\n');
    expect(text).toContain(
      'It adds 1 new function or class. It changes 1 existing function or class. It removes 1 function or class.',
    );
    expect(text).toContain(
      '### Definitions to change\n\nFunction: format_amount\nDeclaration: def format_amount(cents):\nDocstring: Format integer cents.\n',
    );
    expect(text).toContain(
      '### Definitions to remove\n\nFunction: legacy_round\nDeclaration: def legacy_round(value):\n',
    );
    expect(text).not.toContain('File:');
    expect(renderRequest(pr, { filepaths: true })).toContain(
      'Function: format_amount\nFile: ledger/money.py\n',
    );
  });

  it('counts plural definitions', () => {
    expect(summarySentence({ added: [format, format], modified: [], deleted: [] })).toBe(
      'It adds 2 new functions or classes. It changes no existing function or class. Use the names, signatures and docstrings given below.',
    );
  });

  it('the PRD is every request in order under a numbered heading', () => {
    const prd = renderPrd([
      record(),
      record({ pr_number: 9, prs: { ...record().prs, number: 9, title: 'Parse grouped' } }),
    ]);
    expect(prd.indexOf('# Change 1 of 2: Group thousands (PR #8)')).toBe(0);
    expect(prd).toContain('# Change 2 of 2: Parse grouped (PR #9)');
    expect(prd.split('## Request').length).toBe(3);
  });
});
