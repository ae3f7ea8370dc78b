import type { TrajectoryEvent, TrialRecord, TrialScoreContext, TrialSpec } from '@longhaul/core';
import { FakeSnapshotStore, sampleTask } from '@longhaul/testkit';

const usage = (tokens: number) => ({
  inputTokens: tokens,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0,
});

export function trial(
  task: string,
  repeat: number,
  passed: boolean,
  extra: Record<string, number | boolean> = {},
  condition = 'ide/c',
) {
  const record: TrialRecord = {
    id: `${task}-${repeat}`,
    task,
    condition,
    repeat,
    status: 'ok',
    durationMs: 1,
    usage: usage(passed ? 1000 : 5000),
    steps: [
      {
        index: 0,
        id: 's',
        status: 'ok',
        turns: 1,
        durationMs: 1,
        usage: usage(0),
        scores: { 'tests.strict': passed ? 1 : 0, 'tests.pass_rate': passed ? 1 : 0.5 },
      },
    ],
    scores: extra,
  };
  const spec = {
    id: record.id,
    repeat,
    task: sampleTask(1, { id: task }),
    condition: { key: condition },
  } as unknown as TrialSpec;
  return { spec, record };
}

/** A trial-scope context of an `ide` trial whose only step failed with half the tests passing. */
export function toolUseContext(events: TrajectoryEvent[]): TrialScoreContext {
  const { spec, record } = trial('sample-1', 0, false);
  return {
    trial: {
      ...spec,
      condition: { harness: { id: 'ide', options: { maxIterations: 100 }, label: 'ide' } },
      task: sampleTask(1, { seed: undefined }),
    },
    record,
    events,
    snapshots: new FakeSnapshotStore(),
    trialDir: '/nowhere',
  } as unknown as TrialScoreContext;
}
