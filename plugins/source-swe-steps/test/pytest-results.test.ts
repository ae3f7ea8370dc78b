import { describe, expect, it } from 'vitest';
import {
  classifyTests,
  failureReason,
  isEnvironmentReason,
  type Outcome,
  parsePytestMessages,
  parsePytestSummary,
} from '../src/index.js';

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

  it('gives why each test or module failed, a collection error from its ERRORS block', () => {
    const text = output.replace(
      "ImportError: cannot import name 'Budget'\n=",
      "Traceback:\ntests/test_b.py:1: in <module>\n    import pytz\nE   ModuleNotFoundError: No module named 'pytz'\n=",
    );
    expect(Object.fromEntries(parsePytestMessages(text))).toEqual({
      'tests/test_b.py': "ModuleNotFoundError: No module named 'pytz'",
      'tests/test_a.py::test_two': 'assert 1 == 2',
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

  it('says why a test fails with the fix: a missing module or file is the environment’s doing', () => {
    const after = [
      run({
        'tests/test_a.py::test_new': 'passed',
        'tests/test_a.py::test_tz': 'failed',
        'tests/test_a.py::test_cli': 'failed',
        'tests/test_a.py::test_math': 'failed',
        'tests/test_b.py': 'error',
        'tests/test_c.py': 'error',
      }),
    ];
    const messages = new Map([
      ['tests/test_a.py::test_tz', "ModuleNotFoundError: No module named 'pytz'"],
      ['tests/test_a.py::test_cli', "FileNotFoundError: [Errno 2] No such file or directory: 'python'"],
      ['tests/test_a.py::test_math', 'assert 3 == 4'],
      ['tests/test_b.py', "ImportError: cannot import name 'x' from 'y'"],
      ['tests/test_c.py', 'SyntaxError: invalid syntax'],
    ]);
    const { dropped } = classifyTests([new Map()], after, previous, messages);
    expect(dropped).toEqual([
      {
        id: 'tests/test_a.py::test_cli',
        reason: "missing-file: [Errno 2] No such file or directory: 'python'",
      },
      { id: 'tests/test_a.py::test_math', reason: 'fails with the fix: assert 3 == 4' },
      { id: 'tests/test_a.py::test_tz', reason: "import-error: No module named 'pytz'" },
      { id: 'tests/test_b.py', reason: "import-error: cannot import name 'x' from 'y'" },
      { id: 'tests/test_c.py', reason: 'collection-error: SyntaxError: invalid syntax' },
    ]);
    expect(dropped.map((d) => isEnvironmentReason(d.reason))).toEqual([true, false, true, true, true]);
    expect(failureReason(undefined)).toBe('fails with the fix');
  });
});
