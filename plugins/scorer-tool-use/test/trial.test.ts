import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TrajectoryEvent, WorkspaceFile } from '@longhaul/core';
import { FakeSnapshotStore, sampleTask } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import { analyze } from '../src/analytics.js';
import { detectFailureModes, type FailureMode } from '../src/failure-modes.js';
import { claimedFiles, intentByTurn } from '../src/intent.js';
import { toolUseOptions } from '../src/options.js';
import { ToolUseScorer } from '../src/tool-use-scorer.js';
import { parseTrajectory } from '../src/trajectory.js';
import { edit, iteration, read, turn } from './events.js';
import { toolUseContext } from './records.js';

function modes(
  events: TrajectoryEvent[],
  extra: { statuses?: string[]; maxIterations?: number; availableFiles?: number; testPassRate?: number } = {},
) {
  const trajectory = parseTrajectory(events);
  const found = detectFailureModes({
    trajectory,
    analytics: analyze(trajectory),
    statuses: extra.statuses ?? ['ok'],
    maxIterations: extra.maxIterations ?? 100,
    availableFiles: extra.availableFiles,
    testPassRate: extra.testPassRate,
  });
  return Object.entries(found)
    .filter(([, on]) => on)
    .map(([mode]) => mode as FailureMode);
}

const explored = [iteration(read('a.py'), read('b.py'), read('c.py'))].flat();

describe('analytics', () => {
  it('counts calls, bigrams, read-to-edit, tools before the first edit and iteration categories', () => {
    const events = turn('go', [
      ...iteration(read('a.py'), read('b.py')),
      ...iteration(edit('a.py', false, { syntax_error: true })),
      ...iteration(edit('a.py'), { name: 'run_terminal_cmd', input: { command: 'pytest' } }),
    ]);
    const a = analyze(parseTrajectory(events));
    expect(a).toMatchObject({
      calls: 5,
      iterations: 4,
      categories: { read: 2, edit: 2, exec: 1, other: 0 },
      readToEdit: 1,
      toolsBeforeFirstEdit: 2,
      firstSuccessfulEditIteration: 3,
      iterationCategories: { productive: 1, exploration: 2, nonProductive: 1 },
      successfulEdits: 1,
      syntaxErrorsBlocked: 1,
      failedCalls: 1,
    });
    expect(a.bigrams).toEqual({
      'read_file--read_file': 1,
      'read_file--edit_file': 1,
      'edit_file--edit_file': 1,
      'edit_file--run_terminal_cmd': 1,
    });
  });
});

describe('the twelve failure modes', () => {
  it('premature editing: fewer than 3 files read before the first edit', () => {
    expect(modes(turn('go', [...iteration(read('a.py')), ...iteration(edit('a.py'))]))).toEqual([
      'premature_editing',
    ]);
    expect(modes(turn('go', [...explored, ...iteration(edit('a.py'))]))).toEqual([]);
  });

  it('syntax error loop: 3 consecutive failed edits with syntax errors', () => {
    const bad = edit('a.py', false, { syntax_error: true });
    expect(modes(turn('go', [...explored, ...iteration(bad, bad, bad)]))).toContain('syntax_error_loop');
    expect(modes(turn('go', [...explored, ...iteration(bad, bad, edit('a.py'), bad)]))).not.toContain(
      'syntax_error_loop',
    );
  });

  it('wrong file targeting: most edits fail and under 30% of the files were explored', () => {
    const events = turn('go', [
      ...explored,
      ...iteration(edit('x.py', false), edit('y.py', false), edit('a.py')),
    ]);
    expect(modes(events, { availableFiles: 20 })).toContain('wrong_file_targeting');
    expect(modes(events, { availableFiles: 5 })).not.toContain('wrong_file_targeting');
  });

  it('infinite exploration: more than 15 iterations in a row without an edit', () => {
    const many = Array.from({ length: 16 }, () => iteration(read('a.py'))).flat();
    expect(modes(turn('go', many))).toContain('infinite_exploration');
    // turn() adds the final text-only iteration: 14 + 1 = 15 iterations, not more than 15.
    expect(modes(turn('go', many.slice(0, 14 * 3)))).not.toContain('infinite_exploration');
  });

  it('large risky edits: one edit over 50 lines', () => {
    expect(
      modes(
        turn('go', [...explored, ...iteration(edit('a.py', true, { lines_added: 40, lines_removed: 11 }))]),
      ),
    ).toContain('large_risky_edits');
  });

  it('iteration exhaustion: the cap was reached', () => {
    expect(modes(turn('go', [...explored, ...iteration(read('a.py'))]), { maxIterations: 3 })).toContain(
      'iteration_exhaustion',
    );
    expect(modes(turn('go', explored), { statuses: ['timeout'] })).toContain('iteration_exhaustion');
  });

  it('infrastructure errors: a fault of the sandbox or the model', () => {
    expect(modes(turn('go', explored), { statuses: ['error:rate_limit'] })).toContain(
      'infrastructure_errors',
    );
    expect(modes(turn('go', explored), { statuses: ['failed'] })).not.toContain('infrastructure_errors');
  });

  it('no successful edits: edits were attempted, none succeeded', () => {
    expect(modes(turn('go', [...explored, ...iteration(edit('a.py', false))]))).toContain(
      'no_successful_edits',
    );
  });

  it('tool call failures: 5 or more failed calls (security refusals apart)', () => {
    const fail = { name: 'run_terminal_cmd', ok: false };
    expect(modes(turn('go', [...explored, ...iteration(fail, fail, fail, fail, fail)]))).toContain(
      'tool_call_failures',
    );
    const blocked = { name: 'read_file', ok: false, result: { blocked_by_security: true } };
    expect(
      modes(turn('go', [...explored, ...iteration(blocked, blocked, blocked, blocked, blocked)])),
    ).not.toContain('tool_call_failures');
  });

  it('thrashing: more than 4 edits to the same file', () => {
    const e = edit('a.py');
    expect(modes(turn('go', [...explored, ...iteration(e, e, e, e, e)]))).toEqual(['thrashing']);
    expect(modes(turn('go', [...explored, ...iteration(e, e, e, e)]))).toEqual([]);
  });

  it('context loss: the same file read more than 5 times', () => {
    const r = read('a.py');
    expect(modes(turn('go', iteration(r, r, r, r, r, r)))).toContain('context_loss');
    expect(modes(turn('go', iteration(r, r, r, r, r)))).not.toContain('context_loss');
  });

  it('test misinterpretation: reported done while some tests still fail', () => {
    const events = turn('go', [...explored, ...iteration(edit('a.py'))]);
    expect(modes(events, { testPassRate: 0.8 })).toContain('test_misinterpretation');
    expect(modes(events, { testPassRate: 0 })).not.toContain('test_misinterpretation');
    expect(modes(turn('go', explored, '', 'failed'), { testPassRate: 0.8 })).not.toContain(
      'test_misinterpretation',
    );
  });
});

describe('intent vs change', () => {
  it('finds files claimed as changed, not files merely read', () => {
    expect(claimedFiles('I read src/app.py. Then I updated src/util.py and fixed `calc.py`.')).toEqual([
      'src/util.py',
      'calc.py',
    ]);
  });

  it('scores each turn and flags claims with no matching change', () => {
    const events = [
      ...turn(
        'step 1',
        [...iteration({ ...edit('src/a.py'), explanation: 'fix the bug in src/a.py' })],
        'I fixed src/a.py.',
      ),
      ...turn('step 2', [...iteration(read('src/b.py'))], 'I updated src/b.py and all tests pass.'),
    ];
    const [first, second] = intentByTurn(parseTrajectory(events));
    expect(first).toMatchObject({
      claimed: ['src/a.py'],
      changed: ['src/a.py'],
      unmatched: [],
      alignment: 1,
    });
    expect(second).toMatchObject({
      claimed: ['src/b.py'],
      changed: [],
      unmatched: ['src/b.py'],
      alignment: 0,
      claimsTestsPass: true,
    });
    const byDiff = intentByTurn(
      parseTrajectory(events),
      new Map([
        [0, ['src/a.py']],
        [1, ['src/b.py']],
      ]),
    );
    expect(byDiff[1]!.alignment).toBe(1);
  });
});

describe('the tool-use scorer', () => {
  it('scores a failed trial with its failure modes, intent and per-tool counts', async () => {
    const events = turn(
      'go',
      [...iteration(read('a.py')), ...iteration({ ...edit('a.py'), explanation: 'change a.py' })],
      'I changed a.py; all tests pass.',
    );
    const ctx = toolUseContext(events);
    const scores = Object.fromEntries(
      (await new ToolUseScorer(toolUseOptions.parse({})).score(ctx)).map((s) => [s.metric, s.value]),
    );
    expect(scores).toMatchObject({
      calls: 2,
      success: false,
      'failure.premature_editing': true,
      'failure.test_misinterpretation': true,
      'failure.thrashing': false,
      'failure.count': 2,
      'intent.alignment': 1,
      'intent.false_test_claims': 1,
      'tool.read_file': 1,
      'bigram.read_file--edit_file': 1,
      explained_share: 0.5,
    });
  });

  it("takes each step's changed files from its snapshot and the one before, the seed's for the first", async () => {
    const seed = await mkdtemp(join(tmpdir(), 'tool-use-seed-'));
    try {
      await mkdir(join(seed, 'a'));
      await writeFile(join(seed, 'a.py'), 'seed');
      await writeFile(join(seed, 'a', 'gone.py'), 'seed');
      await writeFile(join(seed, 'zz.py'), 'seed');
      const snapshots = new FakeSnapshotStore();
      const files = (tree: Record<string, string>): WorkspaceFile[] =>
        Object.entries(tree).map(([path, text]) => ({ path, mode: 0o644, data: Buffer.from(text) }));
      // Step 1 adds a file before every seed file and one after, drops `a/gone.py` and the last.
      const first = await snapshots.put(
        files({ '0.py': 'new', 'a.py': 'seed', 'm.py': 'new', 'zzz.py': 'new' }),
      );
      // Step 2 edits the first file, drops the last and adds one past every other.
      const second = await snapshots.put(
        files({ '0.py': 'edited', 'a.py': 'seed', 'm.py': 'new', '~.py': 'x' }),
      );
      const events = [...turn('one', iteration(edit('0.py'))), ...turn('two', iteration(edit('0.py')))];
      const ctx = toolUseContext(events);
      const step = ctx.record.steps[0]!;
      ctx.record.steps = [
        { ...step, snapshot: first },
        { ...step, index: 1, snapshot: second },
      ];
      (ctx.trial as { task: unknown }).task = sampleTask(1, { seed });
      ctx.snapshots = snapshots;
      const scores = await new ToolUseScorer(toolUseOptions.parse({})).score(ctx);
      const detail = scores.find((score) => score.metric === 'intent.alignment')!.detail as {
        turns: { changed: string[] }[];
      };
      expect(detail.turns.map((t) => t.changed)).toEqual([
        ['0.py', 'a/gone.py', 'm.py', 'zz.py', 'zzz.py'],
        ['0.py', 'zzz.py', '~.py'],
      ]);
    } finally {
      await rm(seed, { recursive: true, force: true });
    }
  });
});
