import type { Status } from '@longhaul/core';
import { type Analytics, filesReadBeforeFirstEdit, hasSyntaxError, isEdit } from './analytics.js';
import { readsFile } from './categories.js';
import type { ParsedTrajectory } from './trajectory.js';

/** IDE-Bench's twelve failure modes (appendix C), in the paper's order. */
export const failureModes = [
  'premature_editing',
  'syntax_error_loop',
  'wrong_file_targeting',
  'infinite_exploration',
  'large_risky_edits',
  'iteration_exhaustion',
  'infrastructure_errors',
  'no_successful_edits',
  'tool_call_failures',
  'thrashing',
  'context_loss',
  'test_misinterpretation',
] as const;

export type FailureMode = (typeof failureModes)[number];

/** Error classes that are the infrastructure's fault, not the agent's. */
const infrastructureClasses = new Set([
  'sandbox',
  'model',
  'rate_limit',
  'auth',
  'harness',
  'internal',
  'crash',
  'oom',
]);

export interface FailureInput {
  trajectory: ParsedTrajectory;
  analytics: Analytics;
  /** Statuses of the trial and its steps. */
  statuses: (Status | string)[];
  /** The iteration cap the agent ran under. */
  maxIterations: number;
  /** Files in the workspace the agent worked on, when known. */
  availableFiles?: number;
  /** Share of hidden tests the trial passed (mean over steps), when known. */
  testPassRate?: number;
}

function longestRun<T>(items: readonly T[], test: (item: T) => boolean): number {
  let best = 0;
  let run = 0;
  for (const item of items) {
    run = test(item) ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best;
}

function maxCount(values: readonly (string | undefined)[]): number {
  const counts = new Map<string, number>();
  for (const value of values) if (value) counts.set(value, (counts.get(value) ?? 0) + 1);
  return Math.max(0, ...counts.values());
}

/**
 * The failure modes a failed trial shows, with the paper's detection thresholds. Each mode is
 * judged independently, so a trial can show several.
 */
export function detectFailureModes(input: FailureInput): Record<FailureMode, boolean> {
  const { trajectory, analytics, statuses } = input;
  const { calls } = trajectory;
  const edits = calls.filter(isEdit);
  const failedEdits = edits.filter((call) => !call.ok);
  const lines = (call: (typeof calls)[number]) =>
    Number(call.result?.lines_added ?? 0) + Number(call.result?.lines_removed ?? 0);
  const readFiles = new Set(calls.filter((c) => readsFile(c.name) && c.file).map((c) => c.file));
  const editIterations = new Set(edits.map((call) => call.iteration));
  const iterations = Array.from({ length: trajectory.iterations }, (_, i) => i + 1);
  const lastTurn = trajectory.turns.at(-1)?.end;
  const capHit =
    trajectory.iterations >= input.maxIterations ||
    trajectory.errors.some((e) => e.errorClass === 'iteration_limit') ||
    statuses.includes('timeout');
  return {
    premature_editing: edits.length > 0 && filesReadBeforeFirstEdit(calls) < 3,
    syntax_error_loop: longestRun(edits, (call) => !call.ok && hasSyntaxError(call)) >= 3,
    wrong_file_targeting:
      edits.length > 0 &&
      failedEdits.length / edits.length > 0.5 &&
      input.availableFiles !== undefined &&
      readFiles.size / Math.max(1, input.availableFiles) < 0.3,
    infinite_exploration: longestRun(iterations, (i) => !editIterations.has(i)) > 15,
    large_risky_edits: edits.some((call) => lines(call) > 50),
    iteration_exhaustion: capHit,
    infrastructure_errors: statuses.some(
      (status) => status.startsWith('error:') && infrastructureClasses.has(status.slice('error:'.length)),
    ),
    no_successful_edits: analytics.successfulEdits === 0 && edits.length > 0,
    tool_call_failures: analytics.failedCalls >= 5,
    thrashing: maxCount(edits.map((call) => call.file)) > 4,
    context_loss: maxCount(calls.filter((call) => readsFile(call.name)).map((call) => call.file)) > 5,
    test_misinterpretation:
      lastTurn?.status === 'ok' &&
      input.testPassRate !== undefined &&
      input.testPassRate > 0 &&
      input.testPassRate < 1,
  };
}
