import type { PluginRef, TrialRecord, TrialSpec } from '@longhaul/core';
import { sampleTask } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import { slumpOptions } from '../src/options.js';
import { SlumpScorer } from '../src/slump-scorer.js';

const ref = (label: string): PluginRef => ({ id: label, label, options: {} });

function trial(
  task: string,
  script: string,
  memory: string,
  scores: Record<string, number | null>,
  status: TrialRecord['status'] = 'ok',
) {
  const key = `ide/${script}/${memory}`;
  const spec = {
    id: `${task}-${key}`,
    task: sampleTask(1, { id: task }),
    condition: {
      key,
      harness: ref('ide'),
      environment: ref('local'),
      script: ref(script),
      memory: ref(memory),
    },
  } as unknown as TrialSpec;
  const prefixed = Object.fromEntries(
    Object.entries(scores).map(([metric, value]) => [`faithfulness.${metric}`, value]),
  );
  const record = {
    status,
    scores: {},
    steps: [{ scores: {} }, { scores: prefixed }],
  } as unknown as TrialRecord;
  return { spec, record };
}

// Two tasks; the per-task values are chosen so the macro means are the paper's Claude Code MCFs.
const trials = [
  trial('a', 'conversation', 'none', { mcf: 2.5, if50: 0.4 }),
  trial('b', 'conversation', 'none', { mcf: 2.936, if50: 0.428 }),
  trial('a', 'single-shot', 'none', { mcf: 3.0, if50: 0.5 }),
  trial('b', 'single-shot', 'none', { mcf: 3.062, if50: 0.56 }),
  trial('a', 'conversation', 'projectguard', { mcf: 3.0, if50: 0.45 }),
  trial('b', 'conversation', 'projectguard', { mcf: 3.0, if50: null }),
  // A fault and a cancel: their last scores are not a final state and count only beside the rest.
  trial('a', 'conversation', 'projectguard', { mcf: 0, if50: 0 }, 'error:model'),
  trial('b', 'conversation', 'projectguard', { mcf: 0, if50: 0 }, 'cancelled'),
];

async function scores() {
  const scorer = new SlumpScorer(slumpOptions.parse({ metrics: ['mcf', 'if50'] }));
  const result = await scorer.score({ trials });
  return (condition: string, metric: string) =>
    result.find((score) => score.condition === condition && score.metric === metric)?.value;
}

describe('slump across conditions', () => {
  it('reports the loss of every condition against the single-shot control', async () => {
    const value = await scores();
    // biome-ignore lint/suspicious/noApproximativeNumericConstant: 2.718 is the paper's emergent MCF, not e
    expect(value('ide/conversation/none', 'mcf')).toBeCloseTo(2.718, 6);
    expect(value('ide/single-shot/none', 'mcf')).toBeCloseTo(3.031, 6);
    expect(value('ide/conversation/none', 'loss.mcf')).toBeCloseTo(0.313, 6);
    expect(value('ide/conversation/projectguard', 'loss.mcf')).toBeCloseTo(0.031, 6);
    expect(value('ide/single-shot/none', 'loss.mcf')).toBeUndefined();
  });

  it('counts errored and cancelled trials beside the scored ones and leaves their scores out', async () => {
    const value = await scores();
    expect(value('ide/conversation/projectguard', 'trials.scored')).toBe(2);
    expect(value('ide/conversation/projectguard', 'trials.errored')).toBe(1);
    expect(value('ide/conversation/projectguard', 'trials.cancelled')).toBe(1);
    expect(value('ide/conversation/projectguard', 'mcf')).toBe(3);
  });

  it('reports gap recovery for memories under the emergent script (90% for 2.718 → 3.000 of 3.031)', async () => {
    const value = await scores();
    expect(Math.round((value('ide/conversation/projectguard', 'recovery.mcf') as number) * 100)).toBe(90);
    expect(value('ide/conversation/none', 'recovery.mcf')).toBeUndefined();
    // (3.000 − 2.718) / 2.718 = 0.10375: the relative improvement Table 6 reports for DIR.
    expect(value('ide/conversation/projectguard', 'relative.mcf')).toBeCloseTo(0.10375, 5);
  });

  it('counts wins, ties and losses per task against the emergent baseline, leaving missing values out', async () => {
    const value = await scores();
    expect(value('ide/single-shot/none', 'wins.mcf')).toBe(2);
    expect(value('ide/conversation/projectguard', 'wins.mcf')).toBe(2);
    expect(value('ide/conversation/projectguard', 'ties.mcf')).toBe(0);
    expect(value('ide/conversation/projectguard', 'losses.mcf')).toBe(0);
    expect(value('ide/conversation/projectguard', 'wins.if50')).toBe(1);
    expect(value('ide/conversation/projectguard', 'losses.if50')).toBe(0);
  });
});
