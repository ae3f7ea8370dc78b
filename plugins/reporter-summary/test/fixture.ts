import { emptyUsage, type StepRecord, type Task, type TrialRecord, type TrialSpec } from '@longhaul/core';

export const task: Task = {
  id: 'worklog',
  title: 'worklog',
  source: 'longhaul',
  root: '/problems/worklog',
  entrypoint: 'python3 main.py',
  language: 'python',
  environment: {},
  steps: ['csv', 'jsonl', 'store'].map((id, index) => ({ id, index, prompt: `step ${id}`, metadata: {} })),
  timeouts: { caseMs: 1000 },
  hash: 'sha256:0',
  metadata: {},
};

function spec(id: string, condition: string, repeat: number): TrialSpec {
  const ref = { id: condition, options: {}, label: condition };
  return {
    id,
    runId: 'run',
    runDir: '/runs/run',
    task,
    condition: { key: condition, harness: ref, environment: ref, script: ref, memory: ref },
    repeat,
    scorers: [{ id: 'tests', options: {}, label: 'tests' }],
    limits: { turnMs: 1, stepMs: 1, turnsPerStep: 1, trialUsd: 0, onError: 'stop' },
    plugins: [],
  };
}

function step(index: number, scores: StepRecord['scores'], status: StepRecord['status'] = 'ok'): StepRecord {
  return { index, id: task.steps[index]!.id, status, turns: 1, durationMs: 10, usage: emptyUsage(), scores };
}

const solved = { 'tests.strict': 1, 'tests.iso': 1, 'tests.core': 1, 'tests.pass_rate': 1 };

function record(
  id: string,
  condition: string,
  repeat: number,
  steps: StepRecord[],
  costUsd: number,
  status: TrialRecord['status'] = 'ok',
): TrialRecord {
  return {
    id,
    task: 'worklog',
    condition,
    repeat,
    status,
    startedAt: startedAt[id],
    durationMs: 60_000,
    usage: { ...emptyUsage(), inputTokens: 100, costUsd },
    steps,
    scores: { 'tests.solved_steps': steps.length },
  };
}

/** The agent's two trials overlap by 30 s; the oracle's starts as the first agent trial ends. */
const startedAt: Record<string, string> = {
  'worklog.agent.r1': '2026-01-01T12:00:00.000Z',
  'worklog.agent.r2': '2026-01-01T12:00:30.000Z',
  'worklog.oracle.r1': '2026-01-01T12:01:00.000Z',
};

/**
 * Two conditions: `oracle` solves everything twice; `agent` solves step 1, fails step 2 on
 * regression only, and crashes before step 3 in one repeat.
 */
export function trials(): { spec: TrialSpec; record: TrialRecord }[] {
  return [
    {
      spec: spec('worklog.agent.r1', 'agent', 1),
      record: record(
        'worklog.agent.r1',
        'agent',
        1,
        [
          step(0, solved),
          step(1, { 'tests.strict': 0, 'tests.iso': 1, 'tests.core': 1, 'tests.pass_rate': 0.5 }),
          step(2, { 'tests.strict': 0, 'tests.iso': 0, 'tests.core': 0, 'tests.pass_rate': 0.25 }),
        ],
        1.5,
      ),
    },
    {
      spec: spec('worklog.agent.r2', 'agent', 2),
      record: record(
        'worklog.agent.r2',
        'agent',
        2,
        [step(0, solved), step(1, { 'tests.strict': null, 'tests.iso': null }, 'error:crash')],
        0.5,
        'error:crash',
      ),
    },
    {
      spec: spec('worklog.oracle.r1', 'oracle', 1),
      record: record(
        'worklog.oracle.r1',
        'oracle',
        1,
        [0, 1, 2].map((i) => step(i, solved)),
        0,
      ),
    },
  ];
}
