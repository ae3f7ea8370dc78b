import type { SkippedFile, StepStatus, TurnPlan } from '../contracts/index.js';
import type { Release } from '../process/slots.js';
import { snapshotDiff } from '../store/diff.js';
import { formatSize } from '../workspace/file-size.js';
import { skipNote } from '../workspace/skip-note.js';
import { bounded, classifyAs, errorMessage, LimitExceeded } from './faults.js';
import type { SandboxLifecycle } from './sandbox-lifecycle.js';
import type { StepClosing } from './step-closing.js';
import { type StepOutcome, scoreStep } from './step-scoring.js';
import { isAgentOutcome, type TrialContext, type TrialPlugins } from './trial-context.js';

/**
 * Scores the steps a turn closes (`turn.scores`): sweeps the sandbox, takes its snapshot, writes
 * each step's snapshot ref and diff, and runs the step scorers. A snapshot that fails gives every
 * step the sandbox's fault (or `cancelled`); nothing here writes scores.json.
 */
export async function scoreTurn(
  trial: TrialContext,
  plugins: TrialPlugins,
  sandboxes: SandboxLifecycle,
  steps: StepClosing,
  turn: TurnPlan,
  status: StepStatus,
): Promise<Map<number, StepOutcome>> {
  const { spec, task, store, snapshots } = trial;
  const signal = trial.cancellation.abortSignal;
  trial.emit({ type: 'trial.phase', trialId: spec.id, phase: 'scoring' });
  await sandboxes.sweep();
  const outcomes = new Map<number, StepOutcome>();
  // Held for the snapshot and the diff, and given back before the scorers, which take slots
  // of their own (holding one across them could leave every slot waiting on another).
  let release: Release = () => undefined;
  let ref: string;
  try {
    release = await trial.cpuSlot();
    const sandbox = sandboxes.current!;
    ref = await bounded(() => sandbox.snapshot(), spec.limits.stepMs, 'the snapshot', signal);
  } catch (error) {
    release();
    const cancelled = (error instanceof LimitExceeded && error.status === 'cancelled') || signal.aborted;
    const failed: StepStatus = cancelled
      ? 'cancelled'
      : isAgentOutcome(status)
        ? classifyAs(error, 'sandbox')
        : status;
    for (const i of turn.scores) {
      outcomes.set(i, {
        status: failed,
        scores: {},
        details: { snapshot: { error: errorMessage(error) } },
        feedback: [],
      });
    }
    return outcomes;
  }
  const start = steps.previousSnapshot;
  // The agent's own change: from what the turn gave it (after a reset), else from the last step.
  const base = steps.givenSnapshot ?? start;
  let skipped: SkippedFile[];
  try {
    skipped = await snapshots.skipped(ref);
    // The turn's change goes to the first step it closes; the later ones changed nothing more.
    // Written as it is made: only the files whose blobs differ are read, one at a time.
    await store.writeDiff(spec.id, task.steps[turn.scores[0]!]!, snapshotDiff(snapshots, base, ref));
  } finally {
    release();
  }
  const stepIds = turn.scores.map((i) => task.steps[i]!.id).join(', ');
  for (const file of skipped) {
    const why =
      file.reason === undefined || file.reason === 'size'
        ? `(${formatSize(file.size)}) is over the environment's maxFileSize`
        : `is ${skipNote(file)}`;
    trial.log('warn', `${stepIds}: ${file.path} ${why}: not in the snapshot`);
  }
  let previous = start;
  for (const i of turn.scores) {
    const step = task.steps[i]!;
    // The turn's change belongs to the first step it closes, as its diff does.
    const stepStart = previous === start ? base : previous;
    await store.writeSnapshotRef(spec.id, step, ref);
    if (previous !== start) await store.writeDiff(spec.id, step, '');
    const outcome = await scoreStep(plugins.stepScorers, {
      task,
      step,
      trial: spec,
      snapshot: ref,
      previous,
      ...(stepStart ? { start: stepStart } : {}),
      snapshots,
      environment: plugins.environment,
      outDir: await store.testsDir(spec.id, step),
      status,
      signal,
      timeoutMs: spec.limits.stepMs,
    });
    const details = skipped.length > 0 ? { ...outcome.details, snapshot: { skipped } } : outcome.details;
    outcomes.set(i, { ...outcome, details, snapshot: ref, ...(stepStart ? { start: stepStart } : {}) });
    previous = ref;
  }
  return outcomes;
}
