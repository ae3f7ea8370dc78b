import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Scorer, StepScoreContext, WorkspaceFile } from '@longhaul/core';
import { FakeSnapshotStore, instantiatePlugin, sampleTask } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

const encoder = new TextEncoder();
const file = (path: string, text: string): WorkspaceFile => ({
  path,
  mode: 0o644,
  data: encoder.encode(text),
});

const first = [
  file('main.py', 'def positive(x):\n    if x > 0:\n        return True\n    else:\n        return False\n'),
  file('.venv/lib/site.py', 'x = 1\n'),
  file('notes.md', '# notes\n'),
];
const second = [
  ...first,
  file('util.py', 'def twice(x):\n    return 2 * x\n'),
  file('build/gen.py', 'x = 1\n'),
  file('.gitignore', 'scratch/\n'),
  file('scratch/tmp.py', 'x = 1\n'),
];

async function context(files: WorkspaceFile[], previous?: WorkspaceFile[]): Promise<StepScoreContext> {
  const snapshots = new FakeSnapshotStore();
  const task = sampleTask(1);
  return {
    task,
    step: task.steps[0]!,
    trial: {} as StepScoreContext['trial'],
    snapshot: await snapshots.put(files),
    ...(previous ? { previous: await snapshots.put(previous) } : {}),
    snapshots,
    openSandbox: () => Promise.reject(new Error('the quality scorer needs no sandbox')),
    outDir: await mkdtemp(join(tmpdir(), 'quality-')),
    status: 'completed' as StepScoreContext['status'],
    signal: new AbortController().signal,
  };
}

describe('scorer quality', () => {
  const scorer = instantiatePlugin<Scorer>(plugin, { exclude: ['notes/'] });

  it('scores the source files of the snapshot and writes quality.json and the JSONL details', async () => {
    const ctx = await context(second, first);
    if (scorer.scope !== 'step') throw new Error('quality is a step scorer');
    const scores = Object.fromEntries((await scorer.score(ctx)).map((score) => [score.metric, score.value]));
    expect(scores).toMatchObject({
      files: 2,
      loc: 7,
      callables: 2,
      // the if/else ladder is flagged by three rules (bool ladder, ternary, else after return)
      rule_hits: 3,
      lines_added: 2,
      lines_removed: 0,
      erosion: 0,
      max_cc: 2,
    });
    expect(scores.churn_ratio).toBeCloseTo(2 / 5, 10);
    for (const key of [
      'verbosity',
      'clone_ratio',
      'violation_rate',
      'high_cc_count',
      'cognitive_complexity',
    ]) {
      expect(scores).toHaveProperty(key);
    }
    const written = JSON.parse(await readFile(join(ctx.outDir, 'quality.json'), 'utf8'));
    expect(written.scores['quality.loc']).toBe(7);
    const callables = (await readFile(join(ctx.outDir, 'quality.callables.jsonl'), 'utf8'))
      .trim()
      .split('\n');
    expect(callables.map((line) => JSON.parse(line).name)).toEqual(['positive', 'twice']);
    const findings = (await readFile(join(ctx.outDir, 'quality.findings.jsonl'), 'utf8')).trim().split('\n');
    expect(JSON.parse(findings[0]!)).toMatchObject({ file: 'main.py', line: 2 });
  });

  it('gives no value, not 0, for the ratios of a workspace the agent left without code', async () => {
    if (scorer.scope !== 'step') throw new Error('quality is a step scorer');
    const scores = Object.fromEntries(
      (await scorer.score(await context([file('notes.md', '# nothing yet\n')], first))).map((score) => [
        score.metric,
        score.value,
      ]),
    );
    expect(scores).toMatchObject({
      loc: 0,
      erosion: null,
      verbosity: null,
      clone_ratio: null,
      violation_rate: null,
      mean_cc: null,
      lines_removed: 5,
    });
  });

  it('gives null churn without a previous snapshot', async () => {
    if (scorer.scope !== 'step') throw new Error('quality is a step scorer');
    const scores = await scorer.score(await context(first));
    expect(scores.find((score) => score.metric === 'churn_ratio')?.value).toBeNull();
  });

  it('re-measures only the changed files of the next step of the same trial, with the same scores', async () => {
    if (scorer.scope !== 'step') throw new Error('quality is a step scorer');
    const trial = { id: 't1', runId: 'r1' } as StepScoreContext['trial'];
    const third = [
      ...second.filter((f) => f.path !== 'util.py'),
      file('util.py', 'def twice(x):\n    return x + x\n'),
    ];
    const scoreOf = async (s: Scorer, files: WorkspaceFile[], previous?: WorkspaceFile[]) => {
      if (s.scope !== 'step') throw new Error('quality is a step scorer');
      const ctx = { ...(await context(files, previous)), trial };
      const scores = await s.score(ctx);
      const written = JSON.parse(await readFile(join(ctx.outDir, 'quality.json'), 'utf8'));
      return { scores, reused: written.reusedFiles };
    };
    expect((await scoreOf(scorer, second, first)).reused).toBe(0);
    const incremental = await scoreOf(scorer, third, second);
    expect(incremental.reused).toBe(1);
    const full = await scoreOf(instantiatePlugin<Scorer>(plugin, { exclude: ['notes/'] }), third, second);
    expect(full.reused).toBe(0);
    expect(incremental.scores).toEqual(full.scores);
  });

  it('rejects unknown options', () => {
    expect(() => instantiatePlugin<Scorer>(plugin, { threshold: 3 })).toThrow(/threshold/);
  });
});
