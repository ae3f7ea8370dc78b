import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommandCapturing } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import commands from '../src/commands/index.js';
import { type CheckResults, checkTotals, datasetFormat, isSound, type Manifest } from '../src/index.js';

const sha = (c: string) => c.repeat(40);

function record(pr: number, commit: string, parent: string, extra: Partial<Manifest['prs'][number]> = {}) {
  return {
    commit_id: sha(commit),
    parent_id: sha(parent),
    pr_number: pr,
    prs: { number: pr, title: `PR ${pr}`, body: '', style: 'squash' as const, issues: [] },
    merged_at: '2025-01-01T00:00:00Z',
    changed_files: [],
    test_files: [],
    test_modules: [],
    support_files: [],
    changes: { added: [], modified: [], deleted: [] },
    pass_to_pass: [],
    fail_to_pass: [],
    fix_patch: '',
    test_patch: '',
    all_texts: { title: '', body: '', issues: [], docs: '' },
    status: 'validated' as const,
    dropped_tests: [],
    ...extra,
  };
}

const manifest: Manifest = {
  format: datasetFormat,
  repository: { name: 'shop', source: '/x', branch: 'main', head: sha('c') },
  window: { since: '2025-01-01', until: '2025-02-01' },
  options: {},
  environment: { setup: [], toolchains: ['python'] },
  tests: { command: ['python3', '-m', 'pytest'], timeoutSeconds: 60 },
  stats: {
    commits: 3,
    prsSeen: 3,
    excluded: { 'no-fail-to-pass': 1 },
    validated: 2,
    validatedNow: 3,
    fromCache: 0,
    testsDropped: 3,
    chains: 1,
    prsInChains: 2,
    wallSeconds: 1,
  },
  prs: [
    record(1, 'a', 'f', {
      test_modules: ['tests/test_total.py'],
      support_files: ['tests/files/amount.txt', 'tests/helpers.py'],
      fail_to_pass: ['tests/test_total.py::test_total', 'tests/test_total.py::test_zero'],
      dropped_tests: [{ id: 'tests/test_total.py::test_old', reason: 'passes without the fix' }],
    }),
    record(2, 'b', 'a', {
      test_modules: ['tests/test_tax.py'],
      fail_to_pass: ['tests/test_tax.py::test_tax'],
      dropped_tests: [{ id: 'tests/test_tax.py::test_rate', reason: 'fails with the fix: AssertionError' }],
    }),
    record(3, 'c', 'b', {
      status: 'excluded',
      excluded: { reason: 'no-fail-to-pass', detail: '' },
      test_modules: ['tests/test_units.py'],
      dropped_tests: [{ id: 'tests/test_units.py', reason: "import-error: No module named 'units'" }],
    }),
  ],
  chains: [{ id: 'pr1-pr2', base: sha('f'), prs: [1, 2] }],
};

describe('longhaul swe-steps report', () => {
  it('lists per PR its test modules, support files and dropped tests by reason', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'swe-steps-report-'));
    await writeFile(join(dir, 'dataset.json'), JSON.stringify(manifest));
    const result = await runCommandCapturing(commands, ['swe-steps', 'report', '.'], {
      cwd: dir,
      installDir: null,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'tests dropped by reason: fails with the fix 1, import-error 1, passes without the fix 1',
    );
    expect(result.stdout).toMatch(/#1\s+pr1-pr2\s+validated\s+1\s+2\s+2\s+0\s+passes without the fix 1/);
    expect(result.stdout).toMatch(/#3\s+–\s+no-fail-to-pass\s+1\s+0\s+0\s+0\s+import-error 1/);
    expect(result.stdout).toContain('  support files: tests/files/amount.txt, tests/helpers.py\n');
    expect(result.stdout).toContain("  dropped tests/test_units.py: import-error: No module named 'units'\n");
    const json = await runCommandCapturing(commands, ['swe-steps', 'report', '.', '--json'], {
      cwd: dir,
      installDir: null,
    });
    const parsed = JSON.parse(json.stdout);
    expect(parsed.droppedByReason).toEqual({
      'fails with the fix': 1,
      'import-error': 1,
      'passes without the fix': 1,
    });
    expect(parsed.prs[0]).toMatchObject({
      pr: 1,
      chain: 'pr1-pr2',
      supportFiles: ['tests/files/amount.txt', 'tests/helpers.py'],
    });
  });

  it('a directory that is not a dataset: exit 2 naming it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'swe-steps-report-'));
    const result = await runCommandCapturing(commands, ['swe-steps', 'report', '.'], {
      cwd: dir,
      installDir: null,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not a SWE-STEPS dataset: it has no dataset.json');
  });
});

describe('what a check concludes', () => {
  const outcome = (success: boolean, f2p: number) => ({ success, f2p });
  const results = (oracle2: boolean, nochangeF2p: number): CheckResults =>
    new Map(
      [1, 2].map((pr) => [
        pr,
        new Map([
          [
            'oracle',
            new Map([
              ['individual', outcome(pr === 1 || oracle2, 100)],
              ['global', outcome(true, 100)],
              ['prd', outcome(true, 100)],
            ] as const),
          ],
          [
            'nochange',
            new Map([
              ['individual', outcome(false, pr === 1 ? nochangeF2p : 0)],
              ['global', outcome(false, 0)],
              ['prd', outcome(false, 0)],
            ] as const),
          ],
        ]),
      ]),
    );

  it('PRs solved, tasks completed and F2P pooled over the PRs’ F2P tests, per agent and setting', () => {
    const totals = checkTotals(manifest, results(false, 50));
    expect(totals.find((t) => t.agent === 'oracle' && t.setting === 'individual')).toEqual({
      agent: 'oracle',
      setting: 'individual',
      prs: 2,
      solved: 1,
      notJudged: 0,
      tasks: 1,
      tasksCompleted: 0,
      tasksNotJudged: 0,
      f2p: 100,
      f2pPassed: 3,
      f2pTotal: 3,
    });
    // PR #1 has 2 F2P tests (one passed), PR #2 one (none): 1 of 3.
    expect(totals.find((t) => t.agent === 'nochange' && t.setting === 'individual')?.f2p).toBe(33.3);
    expect(isSound(totals)).toBe(false);
    expect(isSound(checkTotals(manifest, results(true, 0)))).toBe(true);
    expect(isSound(checkTotals(manifest, results(true, 50)))).toBe(false);
  });

  it('a PR with no F2P test left to judge it on is neither solved nor failed, for either agent', () => {
    // PRD: later commits rewrote the module of every F2P test of PR #1; only PR #2 is judged.
    // The scorer's counts: PR #2's one F2P test was judged (the dataset's count is not used).
    const prd = (success: boolean, pr: number) =>
      pr === 1
        ? { success: false, judged: false, f2p: null, f2pTests: { passed: 0, total: 0 } }
        : { success, f2p: success ? 100 : 0, f2pTests: { passed: success ? 1 : 0, total: 1 } };
    const checked: CheckResults = new Map(
      [1, 2].map((pr) => [
        pr,
        new Map([
          ['oracle', new Map([['prd', prd(true, pr)]] as const)],
          ['nochange', new Map([['prd', prd(false, pr)]] as const)],
        ]),
      ]),
    );
    const totals = checkTotals(manifest, checked).filter((t) => t.setting === 'prd');
    const of = (agent: string) => totals.find((t) => t.agent === agent && t.setting === 'prd');
    expect(of('oracle')).toMatchObject({ prs: 1, solved: 1, notJudged: 1, tasks: 1, tasksCompleted: 1 });
    // Before, the do-nothing agent solved PR #1 with nothing to judge: 1/2 PRs.
    expect(of('nochange')).toMatchObject({
      prs: 1,
      solved: 0,
      notJudged: 1,
      tasksCompleted: 0,
      f2p: 0,
      f2pPassed: 0,
      f2pTotal: 1,
    });
    expect(of('oracle')).toMatchObject({ f2p: 100, f2pPassed: 1, f2pTotal: 1 });
    // PR #1 lists 2 F2P tests; with one superseded, F2P is over the one judged.
    const partly: CheckResults = new Map([
      [
        1,
        new Map([
          [
            'nochange',
            new Map([['prd', { success: false, f2p: 0, f2pTests: { passed: 0, total: 1 } }]] as const),
          ],
        ]),
      ],
    ]);
    expect(checkTotals(manifest, partly).find((t) => t.setting === 'prd')).toMatchObject({
      f2pPassed: 0,
      f2pTotal: 1,
    });
    expect(isSound(totals)).toBe(true);
    // A chain none of whose PRs was judged is no task completed, nor one failed.
    const none: CheckResults = new Map(
      [1, 2].map((pr) => [pr, new Map([['oracle', new Map([['prd', prd(true, 1)]] as const)]])]),
    );
    expect(checkTotals(manifest, none).find((t) => t.setting === 'prd')).toMatchObject({
      prs: 0,
      solved: 0,
      notJudged: 2,
      tasks: 0,
      tasksCompleted: 0,
      tasksNotJudged: 1,
    });
    // The oracle with no PR judged at all has shown nothing: not sound.
    expect(isSound(checkTotals(manifest, none).filter((t) => t.setting === 'prd'))).toBe(false);
  });
});
