import { readsFile } from './categories.js';
import type { ParsedTrajectory, ToolCall } from './trajectory.js';

export interface IterationCategories {
  productive: number;
  exploration: number;
  nonProductive: number;
}

export interface Analytics {
  calls: number;
  failedCalls: number;
  blockedCalls: number;
  iterations: number;
  categories: Record<'read' | 'edit' | 'exec' | 'other', number>;
  byTool: Record<string, number>;
  bigrams: Record<string, number>;
  readToEdit: number | null;
  /** Tool calls before the first edit call; null when there was none. */
  toolsBeforeFirstEdit: number | null;
  /** Iteration of the first successful edit; null when none succeeded. */
  firstSuccessfulEditIteration: number | null;
  iterationCategories: IterationCategories;
  editAttempts: number;
  successfulEdits: number;
  syntaxErrorsBlocked: number;
  explained: number;
  distinctTools: number;
}

export const isEdit = (call: ToolCall) => call.category === 'edit';

export function hasSyntaxError(call: ToolCall): boolean {
  return call.result?.syntax_error === true;
}

export function isBlocked(call: ToolCall): boolean {
  return call.result?.blocked_by_security === true;
}

/** A tool name as a metric-name segment (letters, digits, `_`). */
export function toolKey(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, '_');
}

/** A bigram as a metric-name segment: `a--b`. */
export function bigramKey(a: string, b: string): string {
  return `${toolKey(a)}--${toolKey(b)}`;
}

/**
 * Per-trial tool analytics (IDE-Bench appendices B and D): counts, bigrams, the read-to-edit
 * ratio, tools before the first edit, and iterations labelled productive (a successful edit),
 * non-productive (edits, none succeeded) or exploration (no edit; text-only iterations included).
 */
export function analyze(trajectory: ParsedTrajectory): Analytics {
  const { calls } = trajectory;
  const categories = { read: 0, edit: 0, exec: 0, other: 0 };
  const byTool: Record<string, number> = {};
  const bigrams: Record<string, number> = {};
  for (const [i, call] of calls.entries()) {
    categories[call.category]++;
    byTool[call.name] = (byTool[call.name] ?? 0) + 1;
    if (i > 0) {
      const key = bigramKey(calls[i - 1]!.name, call.name);
      bigrams[key] = (bigrams[key] ?? 0) + 1;
    }
  }
  const firstEdit = calls.findIndex(isEdit);
  const firstSuccess = calls.find((call) => isEdit(call) && call.ok);
  const byIteration = new Map<number, ToolCall[]>();
  for (const call of calls)
    byIteration.set(call.iteration, [...(byIteration.get(call.iteration) ?? []), call]);
  const iterationCategories: IterationCategories = { productive: 0, exploration: 0, nonProductive: 0 };
  for (let i = 1; i <= trajectory.iterations; i++) {
    const edits = (byIteration.get(i) ?? []).filter(isEdit);
    if (edits.some((call) => call.ok)) iterationCategories.productive++;
    else if (edits.length > 0) iterationCategories.nonProductive++;
    else iterationCategories.exploration++;
  }
  return {
    calls: calls.length,
    failedCalls: calls.filter((call) => !call.ok && !isBlocked(call)).length,
    blockedCalls: calls.filter(isBlocked).length,
    iterations: trajectory.iterations,
    categories,
    byTool,
    bigrams,
    readToEdit: categories.edit > 0 ? categories.read / categories.edit : null,
    toolsBeforeFirstEdit: firstEdit >= 0 ? firstEdit : null,
    firstSuccessfulEditIteration: firstSuccess ? firstSuccess.iteration : null,
    iterationCategories,
    editAttempts: categories.edit,
    successfulEdits: calls.filter((call) => isEdit(call) && call.ok).length,
    syntaxErrorsBlocked: calls.filter(hasSyntaxError).length,
    explained: calls.filter((call) => call.explanation).length,
    distinctTools: Object.keys(byTool).length,
  };
}

/** Unique files read (read_file) before the first edit call. */
export function filesReadBeforeFirstEdit(calls: readonly ToolCall[]): number {
  const firstEdit = calls.findIndex(isEdit);
  const before = firstEdit >= 0 ? calls.slice(0, firstEdit) : calls;
  return new Set(before.filter((call) => readsFile(call.name) && call.file).map((call) => call.file)).size;
}
