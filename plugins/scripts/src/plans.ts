import type { Task, TurnPlan } from '@longhaul/core';
import type { ScriptOptions } from './options.js';
import { framePrompt, joinedSpec } from './prompt.js';
import type { ResolvedOptions } from './prompts.js';

type Options = ResolvedOptions<ScriptOptions>;

/** One turn per step, each scoring its step; what differs between scripts is session and workspace. */
function perStep(
  task: Task,
  options: Options,
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
export function planCheckpoints(task: Task, options: Options): TurnPlan[] {
  return perStep(task, options, () => ({ session: 'fresh', workspace: { action: 'carry' } }));
}

/** SWE-STEPS global, SLUMP emergent: one session across all steps, the workspace carries. */
export function planConversation(task: Task, options: Options): TurnPlan[] {
  return perStep(task, options, (index) => ({
    session: index === 0 ? 'fresh' : 'continue',
    workspace: { action: 'carry' },
  }));
}

/** SWE-STEPS individual: before step k the workspace is the reference after step k-1. */
export function planIsolated(task: Task, options: Options): TurnPlan[] {
  return perStep(task, options, (index) => ({
    session: 'fresh',
    workspace: { action: 'reset', afterStep: index - 1 },
  }));
}

/**
 * SLUMP control, SWE-STEPS PRD, SlopCodeBench one-shot: the whole task in one turn, every step
 * scored at the end. Feedback cycles are pooled so the turns match the per-step scripts': n steps
 * of 1 + c turns each give one turn and (c + 1) × n − 1 feedback cycles (none when c is 0).
 * With `planningTurn`, a turn that scores nothing comes first and the work turn continues its
 * session.
 */
export function planSingleShot(task: Task, options: Options): TurnPlan[] {
  if (task.steps.length === 0) return [];
  const all = task.steps.map((step) => step.index);
  const values = {
    spec: task.fullSpec ?? joinedSpec(task),
    step: task.steps.length === 1 ? '1' : `1-${task.steps.length}`,
    title: task.title,
    continuation: false,
  };
  const cycles = options.feedbackCycles;
  const work: TurnPlan = {
    prompt: framePrompt(options, task, values),
    session: options.planningTurn ? 'continue' : 'fresh',
    workspace: { action: 'carry' },
    steps: all,
    scores: all,
    feedbackCycles: cycles === 0 ? 0 : (cycles + 1) * task.steps.length - 1,
  };
  if (!options.planningTurn) return [work];
  const planning: TurnPlan = {
    prompt: framePrompt({ ...options, template: options.planningTurn }, task, values),
    session: 'fresh',
    workspace: { action: 'carry' },
    steps: all,
    scores: [],
    feedbackCycles: 0,
  };
  return [planning, work];
}
