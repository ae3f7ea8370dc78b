import {
  byPath,
  type Figure,
  pairByPath,
  readDirectoryFiles,
  type Score,
  type ScorerReportContext,
  sha256,
  type TrialScoreContext,
  type WorkspaceFile,
} from '@longhaul/core';
import { analyze, toolKey } from './analytics.js';
import { detectFailureModes, failureModes } from './failure-modes.js';
import { toolUseFigures } from './idebench-figures.js';
import { intentByTurn } from './intent.js';
import type { ToolUseOptions } from './options.js';
import { trialPassRate, trialSuccess } from './outcome.js';
import { parseTrajectory } from './trajectory.js';

export const toolUseVersion = '1.0.0';

/** A workspace state as paths and content hashes (files hashed). */
type Hashes = ReadonlyMap<string, string>;

/** A file by its content hash, as a snapshot's entry names it. */
interface Hashed {
  path: string;
  blob: string;
}

/** Paths whose content differs between two workspace states. */
export function changedPaths(before: readonly WorkspaceFile[], after: readonly WorkspaceFile[]): string[] {
  return changedHashes(hashesOf(before), hashesOf(after));
}

function hashesOf(files: readonly WorkspaceFile[]): Hashes {
  return new Map(files.map((file) => [file.path, sha256(file.data)]));
}

function changedHashes(old: Hashes, now: Hashes): string[] {
  const changed = new Set<string>();
  for (const [path, hash] of now) if (old.get(path) !== hash) changed.add(path);
  for (const path of old.keys()) if (!now.has(path)) changed.add(path);
  return [...changed].sort();
}

function harnessCap(ctx: TrialScoreContext, fallback: number): number {
  const harness = ctx.trial.condition.harness;
  const cap = harness.id === 'ide' ? harness.options.maxIterations : undefined;
  return typeof cap === 'number' ? cap : fallback;
}

/** Files each step changed, from its snapshot and the one before (the task's seed for the first). */
async function changesByStep(ctx: TrialScoreContext): Promise<string[][] | undefined> {
  const steps = ctx.record.steps;
  if (steps.length === 0 || steps.some((step) => !step.snapshot)) return undefined;
  try {
    // Compared by the snapshots' blob hashes, two at a time in path order: no file of a snapshot
    // is read, and no snapshot held whole.
    const seed = ctx.trial.task.seed ? await readDirectoryFiles(ctx.trial.task.seed) : [];
    let previous: Iterable<Hashed> | AsyncIterable<Hashed> = seed
      .map((file) => ({ path: file.path, blob: sha256(file.data) }))
      .sort(byPath);
    const out: string[][] = [];
    for (const step of steps) {
      const changed: string[] = [];
      for await (const [old, now] of pairByPath(previous, ctx.snapshots.scan(step.snapshot!)))
        if (old?.blob !== now?.blob) changed.push((old ?? now)!.path);
      out.push(changed);
      previous = ctx.snapshots.scan(step.snapshot!);
    }
    return out;
  } catch {
    return undefined;
  }
}

/** The number of entries in a snapshot, counted as they pass. */
async function countEntries(ctx: TrialScoreContext, ref: string): Promise<number> {
  let count = 0;
  for await (const _ of ctx.snapshots.scan(ref)) count++;
  return count;
}

const share = (part: number, whole: number) => (whole > 0 ? part / whole : null);

/**
 * Trial-scope tool-use analytics of IDE-Bench: counts, bigrams, read-to-edit ratio, tools before
 * the first edit, iteration categories, the twelve failure modes (for trials that did not
 * succeed) and intent against change per turn.
 */
export class ToolUseScorer {
  readonly scope = 'trial';
  readonly version = toolUseVersion;

  constructor(private readonly options: ToolUseOptions) {}

  /** IDE-Bench's tool usage and failure modes per condition, for the report's IDE-Bench section. */
  figures(ctx: ScorerReportContext): Figure[] {
    return toolUseFigures(ctx, this.options.successMetric);
  }

  async score(ctx: TrialScoreContext): Promise<Score[]> {
    const trajectory = parseTrajectory(ctx.events);
    const a = analyze(trajectory);
    const success = trialSuccess(ctx.record, this.options.successMetric);
    const passRate = trialPassRate(ctx.record, this.options.passRateMetric);
    const stepChanges = await changesByStep(ctx);
    const lastSnapshot = ctx.record.steps.at(-1)?.snapshot;
    const availableFiles = lastSnapshot
      ? await countEntries(ctx, lastSnapshot).catch(() => undefined)
      : undefined;
    const statuses = [
      ctx.record.status,
      ...ctx.record.steps.map((step) => step.status),
      ...trajectory.turns.flatMap((turn) => (turn.end ? [turn.end.status] : [])),
    ];
    const modes = detectFailureModes({
      trajectory,
      analytics: a,
      statuses,
      maxIterations: harnessCap(ctx, this.options.maxIterations),
      availableFiles,
      testPassRate: passRate,
    });
    // One turn per step (checkpoint scripts): a turn's change is its step's diff.
    const changedByTurn =
      stepChanges && stepChanges.length === trajectory.turns.length
        ? new Map(stepChanges.map((paths, i) => [i, paths]))
        : undefined;
    const intents = intentByTurn(trajectory, changedByTurn);
    const aligned = intents.flatMap((turn) => (turn.alignment === null ? [] : [turn.alignment]));
    const failedSteps = new Set(
      ctx.record.steps
        .filter((step) => step.scores[this.options.successMetric] === 0)
        .map((step) => step.index),
    );
    const falseTestClaims = intents.filter(
      (turn) => turn.claimsTestsPass && (changedByTurn ? failedSteps.has(turn.turn) : success === false),
    ).length;
    const failed = success === false;

    const scores: Score[] = [
      { metric: 'calls', value: a.calls },
      { metric: 'failed_calls', value: a.failedCalls },
      { metric: 'blocked_calls', value: a.blockedCalls },
      { metric: 'iterations', value: a.iterations },
      { metric: 'reads', value: a.categories.read },
      { metric: 'edits', value: a.categories.edit },
      { metric: 'execs', value: a.categories.exec },
      { metric: 'read_to_edit', value: a.readToEdit },
      { metric: 'tools_before_first_edit', value: a.toolsBeforeFirstEdit },
      { metric: 'first_success_iteration', value: a.firstSuccessfulEditIteration },
      { metric: 'iterations.productive', value: a.iterationCategories.productive },
      { metric: 'iterations.exploration', value: a.iterationCategories.exploration },
      { metric: 'iterations.non_productive', value: a.iterationCategories.nonProductive },
      { metric: 'edits.successful', value: a.successfulEdits },
      { metric: 'syntax_errors_blocked', value: a.syntaxErrorsBlocked },
      { metric: 'explained_share', value: share(a.explained, a.calls) },
      { metric: 'distinct_tools', value: a.distinctTools },
      { metric: 'success', value: success },
      ...failureModes.map((mode) => ({ metric: `failure.${mode}`, value: failed ? modes[mode] : null })),
      { metric: 'failure.count', value: failed ? failureModes.filter((mode) => modes[mode]).length : null },
      {
        metric: 'intent.alignment',
        value: aligned.length > 0 ? aligned.reduce((x, y) => x + y, 0) / aligned.length : null,
        detail: { turns: intents },
      },
      { metric: 'intent.unmatched_claims', value: intents.reduce((n, turn) => n + turn.unmatched.length, 0) },
      { metric: 'intent.false_test_claims', value: falseTestClaims },
    ];
    if (this.options.perTool) {
      for (const [tool, count] of Object.entries(a.byTool))
        scores.push({ metric: `tool.${toolKey(tool)}`, value: count });
      for (const [pair, count] of Object.entries(a.bigrams))
        scores.push({ metric: `bigram.${pair}`, value: count });
    }
    return scores;
  }
}
