import { describe, expect, it } from 'vitest';
import { classifyTests, type Outcome, parsePytestSummary } from '../src/index.js';

const output = `============================= test session starts ==============================
collected 5 items / 1 error

tests/test_a.py .F                                                       [ 50%]

==================================== ERRORS ====================================
___________________ ERROR collecting tests/test_b.py ___________________________
ImportError: cannot import name 'Budget'
=========================== short test summary info ============================
PASSED tests/test_a.py::test_one
PASSED tests/test_a.py::TestKinds::test_param[a - b]
FAILED tests/test_a.py::test_two - assert 1 == 2
ERROR tests/test_b.py - ImportError: cannot import name 'Budget'
SKIPPED [1] tests/test_a.py:12: no network
XFAIL tests/test_a.py::test_later - not yet
==================== 1 failed, 2 passed, 1 skipped, 1 error in 0.12s ===================
`;

describe('pytest -rA summary', () => {
  it('gives outcomes by node id, collection errors against the file', () => {
    expect(Object.fromEntries(parsePytestSummary(output))).toEqual({
      'tests/test_a.py::test_one': 'passed',
      'tests/test_a.py::TestKinds::test_param[a - b]': 'passed',
      'tests/test_a.py::test_two': 'failed',
      'tests/test_b.py': 'error',
      'tests/test_a.py::test_later': 'xfailed',
    });
  });

  it('is empty when pytest printed no summary', () => {
    expect(parsePytestSummary('bash: python3: not found\n').size).toBe(0);
  });
});

describe('sorting tests by what they did', () => {
  const run = (outcomes: Record<string, Outcome>) => new Map(Object.entries(outcomes));
  const previous = new Map([
    ['tests/test_a.py', 'def test_old():\n    pass\n\ndef test_changed():\n    pass\n'],
  ]);

  it('F2P, P2P, and every dropped test with its reason', () => {
    const before = [
      run({
        'tests/test_a.py::test_old': 'passed',
        'tests/test_a.py::test_early': 'passed',
        'tests/test_a.py::test_flaky': 'passed',
      }),
      run({
        'tests/test_a.py::test_old': 'passed',
        'tests/test_a.py::test_early': 'passed',
        'tests/test_a.py::test_flaky': 'failed',
      }),
    ];
    const all = {
      'tests/test_a.py::test_old': 'passed',
      'tests/test_a.py::test_new': 'passed',
      'tests/test_a.py::test_changed': 'passed',
      'tests/test_a.py::test_early': 'passed',
      'tests/test_a.py::test_flaky': 'passed',
      'tests/test_a.py::test_broken': 'failed',
    } as const;
    const after = [
      run(all),
      run({ ...all, 'tests/test_a.py::test_new': 'passed', 'tests/test_a.py::test_old': 'passed' }),
    ];
    after[1]!.set('tests/test_a.py::test_wobbly', 'passed');
    after[0]!.set('tests/test_a.py::test_wobbly', 'failed');
    expect(classifyTests(before, after, previous)).toEqual({
      f2p: ['tests/test_a.py::test_changed', 'tests/test_a.py::test_new'],
      p2p: ['tests/test_a.py::test_old'],
      dropped: [
        { id: 'tests/test_a.py::test_broken', reason: 'fails with the fix' },
        { id: 'tests/test_a.py::test_early', reason: 'passes without the fix' },
        { id: 'tests/test_a.py::test_flaky', reason: 'flaky without the fix' },
        { id: 'tests/test_a.py::test_wobbly', reason: 'flaky with the fix' },
      ],
    });
  });
});
