import { describe, expect, it } from 'vitest';
import { parseTestOutput } from '../src/test-output.js';

describe('reading per-test outcomes from a test run', () => {
  it('reads pytest -rA lines in both orders, counting XPASS as passed', () => {
    const tests = parseTestOutput(
      [
        '== Running base tests ==',
        'PASSED tests/base/test_a.py::test_one',
        'FAILED tasks/task-1/task_tests.py::test_two - AssertionError',
        'tests/base/test_a.py::test_three SKIPPED',
        'XPASS tests/test_x.py::test_four',
        '=== 1 failed, 2 passed in 0.1s ===',
      ].join('\n'),
    );
    expect(Object.fromEntries(tests)).toEqual({
      'tests/base/test_a.py::test_one': 'PASSED',
      'tasks/task-1/task_tests.py::test_two': 'FAILED',
      'tests/base/test_a.py::test_three': 'SKIPPED',
      'tests/test_x.py::test_four': 'PASSED',
    });
  });

  it('reads jest and go test markers', () => {
    expect(
      Object.fromEntries(parseTestOutput('  ✓ adds numbers (3 ms)\n  ✕ rejects nulls (1 ms)\n')),
    ).toEqual({
      'adds numbers': 'PASSED',
      'rejects nulls': 'FAILED',
    });
    expect(Object.fromEntries(parseTestOutput('--- PASS: TestA (0.00s)\n--- FAIL: TestB (0.01s)\n'))).toEqual(
      {
        TestA: 'PASSED',
        TestB: 'FAILED',
      },
    );
  });

  it('falls back to summary counts', () => {
    const tests = parseTestOutput('Tests: 2 failed, 10 passed, 12 total');
    expect([...tests.values()].filter((s) => s === 'PASSED')).toHaveLength(10);
    expect([...tests.values()].filter((s) => s === 'FAILED')).toHaveLength(2);
    expect(parseTestOutput('nothing to see').size).toBe(0);
  });
});
