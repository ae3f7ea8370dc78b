import type { Task, TurnPlan } from '@longhaul/core';
import type { ScriptOptions } from './options.js';
import { framePrompt, joinedSpec } from './prompt.js';

/** One turn per step, each scoring its step; what differs between scripts is session and workspace. */
function perStep(
  task: Task,
  options: ScriptOptions,
  shape: (index: number) => Pick<TurnPlan, 'session' | 'workspace'>,
): TurnPlan[] {
  const sandbox = options.sandbox === 'fresh' ? { sandbox: 'fresh' as const } : {};
  return task.steps.map((step, index) => ({
    prompt: framePrompt(options, task, {
      spec: step.prompt,
      step: String(index + 1),
      title: step.title ?? '',
      continuation: index > 0,
    }),
    ...shape(index),
    ...sandbox,
    steps: [index],
    scores: [index],
    feedbackCycles: options.feedbackCycles,
  }));
}

/** SlopCodeBench: a fresh session per step over the workspace the agent left. */
export function planCheckpoints(task: Task, options: ScriptOptions): TurnPlan[] {
  return perStep(task, options, () => ({ session: 'fresh', workspace: { action: 'carry' } }));
}

/** SWE-STEPS global, SLUMP emergent: one session across all steps, the workspace carries. */
export function planConversation(task: Task, options: ScriptOptions): TurnPlan[] {
  return perStep(task, options, (index) => ({
    session: index === 0 ? 'fresh' : 'continue',
    workspace: { action: 'carry' },
  }));
}

/** SWE-STEPS individual: before step k the workspace is the reference after step k-1. */
export function planIsolated(task: Task, options: ScriptOptions): TurnPlan[] {
  return perStep(task, options, (index) => ({
    session: 'fresh',
    workspace: { action: 'reset', afterStep: index - 1 },
  }));
}

/**
 * SLUMP control, SWE-STEPS PRD, SlopCodeBench one-shot: the whole task in one turn, every step
 * scored at the end. Feedback cycles are pooled (cycles × steps) so the total compute matches
 * the per-step scripts.
 */
export function planSingleShot(task: Task, options: ScriptOptions): TurnPlan[] {
  if (task.steps.length === 0) return [];
  const all = task.steps.map((step) => step.index);
  return [
    {
      prompt: framePrompt(options, task, {
        spec: task.fullSpec ?? joinedSpec(task),
        step: task.steps.length === 1 ? '1' : `1-${task.steps.length}`,
        title: task.title,
        continuation: false,
      }),
      session: 'fresh',
      workspace: { action: 'carry' },
      steps: all,
      scores: all,
      feedbackCycles: options.feedbackCycles * task.steps.length,
    },
  ];
}
