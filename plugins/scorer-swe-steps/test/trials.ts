import type { Condition, PluginRef, ScoreValue, TrialRecord, TrialSpec } from '@longhaul/core';

const ref = (id: string, label = id): PluginRef => ({ id, options: {}, label });

export function condition(script: string, label: string, harness = 'agent'): Condition {
  return {
    key: `${harness}/${label}/none`,
    harness: ref(harness),
    environment: ref('local'),
    script: ref(script, label),
    memory: ref('none'),
  };
}

export interface PrScores {
  passed: boolean;
  f2p?: [number, number];
  p2p?: [number, number];
  extra?: Record<string, ScoreValue>;
}

/** A finished trial of a chain in `repository` whose PRs scored as given. */
export function trialOf(
  repository: string,
  taskId: string,
  prs: PrScores[],
  cond: Condition,
  costUsd = 0,
): { spec: TrialSpec; record: TrialRecord } {
  const steps = prs.map((_, index) => ({ id: `pr-${index + 1}`, index, prompt: '', metadata: {} }));
  const spec: TrialSpec = {
    id: `${taskId}.${cond.key}`,
    runId: 'run',
    runDir: '/nowhere',
    task: {
      id: taskId,
      title: taskId,
      source: 'swe-steps',
      root: '/nowhere',
      entrypoint: '',
      language: 'python',
      environment: {},
      steps,
      timeouts: { caseMs: 1 },
      hash: taskId,
      metadata: { sweSteps: { repository } },
    },
    condition: cond,
    repeat: 1,
    scorers: [],
    limits: { turnMs: 1, stepMs: 1, turnsPerStep: 1, trialUsd: 0, onError: 'continue' },
    plugins: [],
  };
  const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd };
  const record: TrialRecord = {
    id: spec.id,
    task: taskId,
    condition: cond.key,
    repeat: 1,
    status: 'ok',
    startedAt: '',
    durationMs: 0,
    usage,
    scores: {},
    steps: prs.map((pr, index) => ({
      index,
      id: `pr-${index + 1}`,
      status: 'ok',
      turns: 1,
      durationMs: 0,
      usage: { ...usage, costUsd: 0 },
      scores: {
        'swe-steps.success': pr.passed ? 1 : 0,
        'swe-steps.f2p_passed': pr.f2p?.[0] ?? 0,
        'swe-steps.f2p_total': pr.f2p?.[1] ?? 0,
        'swe-steps.p2p_passed': pr.p2p?.[0] ?? 0,
        'swe-steps.p2p_total': pr.p2p?.[1] ?? 0,
        ...pr.extra,
      },
    })),
  };
  return { spec, record };
}

/** `passed` of `length` PRs pass (the first ones). */
export const chain = (length: number, passed: number): PrScores[] =>
  Array.from({ length }, (_, i) => ({ passed: i < passed }));
