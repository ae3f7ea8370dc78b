import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeSource } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import plugin, {
  defaultPathRules,
  type Manifest,
  type MineProgress,
  mine,
  runContainer,
  type Suite,
  SweStepsSource,
} from '../src/index.js';
import { dockerReady, image } from './base-image.js';
import { buildDemo, demoDir } from './demo.js';

// Mining the demo repository once for the whole file: Docker validates 14 PRs.
const work = await mkdtemp(join(tmpdir(), 'longhaul-swe-steps-mine-'));
const out = join(work, 'dataset');
let repo = '';
let first: Manifest | undefined;
const events: MineProgress[] = [];
const options = () => ({
  repo,
  since: '2025-01-01',
  until: '2025-03-31',
  out,
  prs: join(demoDir, 'prs.json'),
  image,
  reruns: 1,
  progress: (event: MineProgress) => events.push(event),
});
if (dockerReady) {
  repo = await buildDemo();
  first = await mine(options());
}
const cacheDir = join(work, 'trees');
const source = () => new SweStepsSource(plugin.options.parse({ path: out, cacheDir }));
const pr = (number: number) => first!.prs.find((record) => record.pr_number === number)!;

describe.skipIf(!dockerReady)('mining the demo repository (Docker)', () => {
  it('sees the window’s PRs of both styles and excludes the expected ones with their reasons', () => {
    expect(first!.stats).toMatchObject({
      commits: 19,
      prsSeen: 18,
      validated: 13,
      chains: 3,
      prsInChains: 13,
    });
    expect(first!.prs.map((record) => record.pr_number)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
    ]);
    const excluded = Object.fromEntries(
      first!.prs
        .filter((record) => record.excluded)
        .map((record) => [record.pr_number, record.excluded!.reason]),
    );
    expect(excluded).toEqual({
      3: 'docs-only',
      5: 'config-only',
      9: 'no-test-change',
      14: 'no-source-change',
      18: 'no-fail-to-pass',
    });
    expect(first!.stats.excluded).toEqual({
      'docs-only': 1,
      'config-only': 1,
      'no-test-change': 1,
      'no-source-change': 1,
      'no-fail-to-pass': 1,
    });
    expect(pr(2).prs).toMatchObject({ style: 'merge', title: 'Add Ledger.balance' });
    expect(pr(8).prs.style).toBe('squash');
  });

  it('F2P and P2P ids as pytest prints them, and every dropped test with why', () => {
    expect(pr(8).fail_to_pass).toEqual([
      'tests/test_money.py::test_format_groups_thousands',
      'tests/test_money.py::test_parse_grouped',
    ]);
    expect(pr(8).pass_to_pass).toEqual([
      'tests/test_money.py::test_format',
      'tests/test_money.py::test_legacy_round',
      'tests/test_money.py::test_parse_cents',
      'tests/test_money.py::test_parse_currency_sign',
      'tests/test_money.py::test_parse_negative',
      'tests/test_money.py::test_parse_rejects_garbage',
      'tests/test_money.py::test_parse_whole',
      'tests/test_money.py::test_round_trip',
    ]);
    // A new test file that cannot be imported without the fix: its tests are F2P, the other
    // module's tests still run (a collection error does not stop the session).
    expect(pr(12).fail_to_pass).toEqual([
      'tests/test_budget.py::test_remaining_counts_spending_only',
      'tests/test_budget.py::test_remaining_stops_at_zero',
    ]);
    expect(pr(12).pass_to_pass).toHaveLength(9);
    expect(pr(4).dropped_tests).toEqual([
      { id: 'tests/test_money.py::test_round_trip', reason: 'passes without the fix' },
    ]);
    expect(pr(11).dropped_tests).toEqual([
      { id: 'tests/test_export.py::test_to_csv_empty_ledger', reason: 'passes without the fix' },
    ]);
    expect(pr(18).dropped_tests).toEqual([
      {
        id: 'tests/test_query.py::test_summary_largest_first',
        reason: "fails with the fix: AssertionError: assert ['bank', 'cash'] == ['cash', 'bank']",
      },
    ]);
    expect(first!.stats.testsDropped).toBe(3);
  });

  it('records the Table 4 fields: patches split into test and fix, definitions, texts', () => {
    const record = pr(12);
    expect(record.test_files).toEqual(['tests/test_budget.py', 'tests/test_money.py']);
    expect(record.changed_files).toEqual(
      [...record.test_files, 'ledger/budget.py', 'ledger/money.py'].sort(),
    );
    expect(record.test_patch).toContain('+++ b/tests/test_budget.py');
    expect(record.test_patch).not.toContain('ledger/budget.py');
    expect(record.fix_patch).toContain('+++ b/ledger/budget.py');
    expect(record.changes.added.map((d) => d.name)).toEqual([
      'Budget.__init__',
      'Budget.spent',
      'Budget.remaining',
      'Budget',
    ]);
    expect(record.changes.deleted).toEqual([
      {
        file: 'ledger/money.py',
        kind: 'function',
        name: 'legacy_round',
        declaration: 'def legacy_round(value):',
        docstring: 'Round a float amount to cents (kept for old callers).',
      },
    ]);
    expect(pr(1).all_texts.issues).toEqual([
      '#20 Record movements of money\n\nThe library can parse and format amounts but has nowhere to keep them. We need a ledger that records which account received how many cents, with a memo.',
    ]);
    expect(pr(1).parent_id).toBe(first!.chains[0]!.base);
  });

  it('cuts chains as designed: docs and CI PRs folded in, other commits cut', () => {
    expect(first!.chains.map((chain) => [chain.id, chain.prs])).toEqual([
      ['pr1-pr8', [1, 2, 4, 6, 7, 8]],
      ['pr10-pr13', [10, 11, 12, 13]],
      ['pr15-pr17', [15, 16, 17]],
    ]);
  });

  it('reports progress per PR', () => {
    const done = events.filter((event) => event.phase === 'pr');
    expect(done).toHaveLength(14);
    expect(done.every((event) => event.phase === 'pr' && !event.cached)).toBe(true);
  });

  it('a second run over the same window re-validates nothing', async () => {
    const again = await mine({ ...options(), progress: undefined });
    expect(again.stats).toMatchObject({ validatedNow: 0, fromCache: 14, validated: 13, chains: 3 });
    expect(again.prs).toEqual(first!.prs);
    expect(again.chains).toEqual(first!.chains);
  });
});

describe.skipIf(!dockerReady)('source swe-steps on the mined demo (Docker)', () => {
  it('gives one task per chain in the contract’s shape', async () => {
    const tasks = await source().load({ baseDir: work });
    expect(tasks.map((task) => task.id)).toEqual(['ledger-pr1-pr8', 'ledger-pr10-pr13', 'ledger-pr15-pr17']);
    const task = tasks[0]!;
    expect(task).toMatchObject({
      source: 'swe-steps',
      language: 'python',
      entrypoint: '',
      root: out,
      environment: { setup: [], toolchains: ['python', 'pytest', 'git'] },
      metadata: {
        sweSteps: {
          repository: 'ledger',
          base: first!.chains[0]!.base,
          chain: 'pr1-pr8',
          prs: [1, 2, 4, 6, 7, 8],
        },
      },
    });
    expect(task.steps.map((step) => step.id)).toEqual(['pr-1', 'pr-2', 'pr-4', 'pr-6', 'pr-7', 'pr-8']);
    const step = task.steps[5]!;
    expect(step.hidden).toEqual(['tests/test_money.py']);
    expect(step.metadata.sweSteps).toEqual({
      pr: 8,
      title: 'Group thousands when formatting amounts',
      commit: pr(8).commit_id,
      parent: pr(8).parent_id,
      testFiles: ['tests/test_money.py'],
      supportFiles: [],
      f2p: pr(8).fail_to_pass,
      p2p: pr(8).pass_to_pass,
    });
    const suite = JSON.parse(await readFile(join(step.cases!, 'suite.json'), 'utf8')) as Suite;
    expect(suite).toEqual({
      pr: 8,
      testFiles: ['tests/test_money.py'],
      supportFiles: [],
      // What the chain's other PRs hide, as PR #8 leaves it.
      restore: ['tests/test_book.py'],
      changedLater: [],
      f2p: pr(8).fail_to_pass,
      p2p: pr(8).pass_to_pass,
      command: ['python3', '-m', 'pytest'],
      // The test globs it was mined with, by which the scorer puts the gold tree's tests back.
      testRules: defaultPathRules.tests,
      // Where validation ran: the image the task asks for, its interpreter and pytest.
      validatedWith: { ...first!.environment.runtime!, image },
    });
    expect(first!.environment.runtime!.pytest).toMatch(/^\d+\.\d+/);
    expect(task.environment.image).toBe(image);
    expect(await readFile(join(step.cases!, 'files/tests/test_money.py'), 'utf8')).toContain(
      'def test_parse_grouped',
    );
    expect(await readdir(step.solution!)).toEqual(['.github', 'README.md', 'docs', 'ledger', 'tests']);
    expect(await readFile(join(step.solution!, 'ledger/money.py'), 'utf8')).toContain(
      'whole.replace(",", "")',
    );
    expect(step.prompt).toContain('Group thousands when formatting amounts');
    expect(step.prompt).toContain('#22 Large amounts are hard to read');
    expect(step.prompt).toContain('Function: parse_amount');
    expect(task.fullSpec!.indexOf(task.steps[0]!.prompt)).toBeGreaterThan(0);
    expect(task.fullSpec!.indexOf(task.steps[1]!.prompt)).toBeGreaterThan(
      task.fullSpec!.indexOf(task.steps[0]!.prompt),
    );
    // The docs-only PR #3 rides along with #4: its README change is in #4's gold tree.
    expect(await readFile(join(task.steps[2]!.solution!, 'docs/entries.md'), 'utf8')).toContain('# Entries');
  });

  it('no future commit or PR test file is reachable from the agent’s workspace in a container', async () => {
    const [task] = await source().load({ baseDir: work });
    const sandbox = await mkdtemp(join(tmpdir(), 'longhaul-swe-steps-seed-'));
    try {
      await cp(task!.seed!, join(sandbox, 'workspace'), { recursive: true });
      const future = [
        'test_balance_sums_one_account',
        'def transfer',
        '1,234,567.89',
        ...first!.prs.map((record) => record.commit_id),
      ];
      const script = [
        'cd /workspace',
        'if git rev-parse --git-dir >/dev/null 2>&1; then echo "git repository reachable"; fi',
        'find / -xdev \\( -name "*.bundle" -o -name "*.pack" -o -name "ORIG_HEAD" \\) -print 2>/dev/null',
        ...future.map(
          (text) =>
            `grep -rlF -- '${text}' /workspace /tmp /root /home /opt /srv 2>/dev/null | sed 's/^/found ${text.slice(0, 12)}: /'`,
        ),
        'ls tests',
        'true',
      ].join('\n');
      const result = await runContainer(
        image,
        [`${join(sandbox, 'workspace')}:/workspace:ro`],
        ['bash', '-c', script],
      );
      expect(result.exitCode).toBe(0);
      expect(String(result.stdout).trim()).toBe('test_money.py');
      // Each step's hidden test files: absent at the base, or only in their earlier version.
      for (const step of task!.steps) {
        for (const path of step.hidden ?? []) {
          const gold = await readFile(join(step.cases!, 'files', path), 'utf8');
          const seed = await readFile(join(task!.seed!, path), 'utf8').catch(() => undefined);
          expect(seed, `${step.id}: ${path}`).not.toBe(gold);
        }
      }
    } finally {
      await rm(sandbox, { recursive: true, force: true });
    }
  });
});

if (dockerReady) {
  describeSource('swe-steps', source, { baseDir: work }, { minTasks: 3 });
}
