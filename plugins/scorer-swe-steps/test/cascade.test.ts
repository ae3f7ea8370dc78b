import type { Step } from '@longhaul/core';
import { describe, expect, it } from 'vitest';
import { activeSuite, feedbackText, isSuperseded } from '../src/index.js';
import type { StepSuite } from '../src/suite.js';

const suite = (pr: number, testFiles: string[], f2p: string[], p2p: string[]): StepSuite => ({
  pr,
  testFiles,
  supportFiles: [],
  restore: [],
  changedLater: [],
  testRules: [],
  f2p,
  p2p,
  command: ['pytest'],
  step: {} as Step,
  filesDir: `/cases/${pr}/files`,
});

describe('the cascading suite', () => {
  it("holds every PR's F2P and P2P, the latest version of each file, and drops tests a later PR removed", () => {
    const one = suite(1, ['t/a.py'], ['t/a.py::new1', 't/a.py::gone'], ['t/a.py::old']);
    const two = suite(2, ['t/a.py', 't/b.py'], ['t/b.py::new2'], ['t/a.py::old', 't/a.py::new1']);
    const three = suite(3, ['t/c.py'], ['t/c.py::new3'], []);
    const active = activeSuite([one, two, three]);
    expect([...active.files].map(([file, owner]) => [file, owner.pr])).toEqual([
      ['t/a.py', 2],
      ['t/b.py', 2],
      ['t/c.py', 3],
    ]);
    // `gone` is in a file PR 2 rewrote without listing it: PR 2 removed it.
    expect(Object.fromEntries(active.ids)).toEqual({
      't/a.py::new1': 2,
      't/a.py::old': 2,
      't/b.py::new2': 2,
      't/c.py::new3': 3,
    });
  });

  it('on the final state (PRD) a test is left out once a later PR rewrote its file without it, even if one after lists it again', () => {
    const later = [
      suite(2, ['t/a.py'], [], ['t/a.py::kept']),
      suite(3, ['t/a.py'], [], ['t/a.py::kept', 't/a.py::changed']),
    ];
    // PR 2 rewrote t/a.py and dropped `changed` (its expectation changed with the code): PR 1's
    // version of it fails after PR 2 whatever PR 3 lists.
    expect(isSuperseded('t/a.py::changed', later)).toBe(true);
    expect(isSuperseded('t/a.py::kept', later)).toBe(false);
    expect(isSuperseded('t/b.py::other', later)).toBe(false);
    expect(isSuperseded('t/a.py::changed', [])).toBe(false);
  });

  it('writes support files and what other steps hid, but runs only the test modules', () => {
    const one = { ...suite(1, ['t/test_a.py'], ['t/test_a.py::x'], []), supportFiles: ['t/conftest.py'] };
    const two = {
      ...suite(2, ['t/test_b.py'], ['t/test_b.py::y'], []),
      supportFiles: ['t/files/q.sql'],
      restore: ['t/conftest.py', 't/helper.py'],
    };
    const active = activeSuite([one, two]);
    expect(active.modules).toEqual(['t/test_a.py', 't/test_b.py']);
    expect([...active.files].map(([file, owner]) => [file, owner.pr]).sort()).toEqual([
      ['t/conftest.py', 2],
      ['t/files/q.sql', 2],
      ['t/helper.py', 2],
      ['t/test_a.py', 1],
      ['t/test_b.py', 2],
    ]);
    expect(activeSuite([two]).modules).toEqual(['t/test_b.py']);
  });

  it('feedback names the failing tests, the PRs cascaded over, and the tail of the output', () => {
    const text = feedbackText({
      pr: 3,
      earlier: [1, 2],
      failed: [
        ['t/a.py::x', 'failed'],
        ['t/a.py::y', 'missing'],
        ['t/a.py::z', 'error'],
      ],
      total: 9,
      output: `${'x'.repeat(100)}THE END`,
      timedOut: false,
      timeoutMs: 1000,
      maxChars: 10,
      maxIds: 2,
    });
    expect(text).toContain('Tests of PR #3 and of the PRs before it (#1, #2): 3 of 9 did not pass.');
    expect(text).toContain('- t/a.py::x (failed)\n- t/a.py::y (missing)\n- … and 1 more');
    expect(text).toMatch(/Output of the test run:\n…xxxTHE END$/);
  });
});
