import {
  addUsage,
  emptyUsage,
  type Status,
  type Step,
  type StepRecord,
  type StepStatus,
  type TrialRecord,
  type TurnPlan,
  type Usage,
} from '../contracts/index.js';
import { ToolTally } from '../stats/tool-calls.js';
import type { StepScoresFile } from '../store/run-store.js';
import type { StepFault } from './step-fault.js';
import type { StepOutcome } from './step-scoring.js';
import { isAgentOutcome, type TrialContext } from './trial-context.js';

/** A step the trial has started and not yet closed. */
export interface OpenStep {
  step: Step;
  startedAt: string;
  startMs: number;
  turns: number;
  usage: Usage;
  agentUsage?: Usage;
  /** The tool calls of the step's turns, and the failed ones. */
  tools: ToolTally;
}

/** A step's tool calls for its record; none for a step no turn worked on. */
const toolsOf = (open: OpenStep | undefined) => (open ? { tools: open.tools.counts } : {});

/** A step's usage fields for its records: the metered usage, and the agent's own when it gave one. */
const usageOf = (open: OpenStep | undefined) => ({
  usage: open?.usage ?? emptyUsage(),
  ...(open?.agentUsage ? { agentUsage: open.agentUsage } : {}),
});

/**
 * The steps of a trial as they open and close, and the trial record made of them. A step is
 * complete once its scores.json is written (`close`): an interrupted trial picks up after its
 * complete steps and never runs them again.
 */
export class StepClosing {
  readonly record: TrialRecord;
  /** The snapshot the last closed step was scored from: the next step's diff starts there. */
  previousSnapshot?: string;
  /**
   * The workspace the current turn gave the agent, when the runner changed it first (a reset to
   * the reference, hidden step files): the step's diff starts there instead, so diff.patch is the
   * agent's own change and reset.patch holds the runner's.
   */
  givenSnapshot?: string;
  /** What the trial's steps spent so far, complete ones included (limits.trialUsd). */
  spentUsd = 0;
  private readonly records = new Map<number, StepRecord>();
  private readonly complete = new Set<number>();
  private readonly open = new Map<number, OpenStep>();

  constructor(
    private readonly trial: TrialContext,
    prior: TrialRecord | undefined,
  ) {
    const { spec } = trial;
    this.record = {
      id: spec.id,
      task: spec.task.id,
      condition: spec.condition.key,
      repeat: spec.repeat,
      status: 'running',
      startedAt: prior?.startedAt ?? new Date().toISOString(),
      durationMs: prior?.durationMs ?? 0,
      usage: emptyUsage(),
      steps: [],
      scores: {},
    };
  }

  /** The indices of the steps complete so far. */
  get completeSteps(): ReadonlySet<number> {
    return this.complete;
  }

  /** Reads the steps an earlier attempt completed (those with a scores.json). */
  async loadComplete(): Promise<void> {
    const { store, spec } = this.trial;
    for (const step of spec.task.steps) {
      const scores = await store.readStepScores(spec.id, step);
      // A cancelled step is not complete, whoever wrote its scores.json (no attempt does now).
      if (!scores || scores.status === 'cancelled') continue;
      this.complete.add(step.index);
      this.records.set(step.index, stepRecordOf(scores));
      this.spentUsd += scores.usage.costUsd;
    }
  }

  /** Whether the step was neither started in this attempt nor completed in an earlier one. */
  untouched(index: number): boolean {
    return !this.open.has(index) && !this.complete.has(index);
  }

  /** The snapshot an interrupted trial continues from: that of the last turn it completed. */
  lastCompleteSnapshot(plan: TurnPlan[], start: number): string | undefined {
    if (start === 0) return undefined;
    const scored = plan[start - 1]!.scores;
    return this.records.get(Math.max(...scored))?.snapshot;
  }

  /** The open step `step`, opened (and announced) if it was not. */
  start(step: Step): OpenStep {
    let open = this.open.get(step.index);
    if (!open) {
      open = {
        step,
        startedAt: new Date().toISOString(),
        startMs: Date.now(),
        turns: 0,
        usage: emptyUsage(),
        tools: new ToolTally(),
      };
      this.open.set(step.index, open);
      this.trial.emit({ type: 'step.start', trialId: this.trial.spec.id, step: step.index, stepId: step.id });
    }
    return open;
  }

  /** Writes scores.json (last: it marks the step complete) and the step's record. */
  async close(index: number, outcome: StepOutcome): Promise<void> {
    if (this.complete.has(index)) return;
    const { store, spec } = this.trial;
    const open = this.start(spec.task.steps[index]!);
    const endedAt = new Date().toISOString();
    const file: StepScoresFile = {
      step: open.step.id,
      index,
      status: outcome.status,
      scores: outcome.scores,
      details: outcome.details,
      turns: open.turns,
      ...usageOf(open),
      durationMs: Date.now() - open.startMs,
      startedAt: open.startedAt,
      endedAt,
      ...(outcome.snapshot ? { snapshot: outcome.snapshot } : {}),
      ...(outcome.start ? { start: outcome.start } : {}),
      tools: { ...open.tools.counts, failures: open.tools.failures },
    };
    await store.writeStepScores(spec.id, open.step, file);
    if (outcome.snapshot) this.previousSnapshot = outcome.snapshot;
    this.complete.add(index);
    this.open.delete(index);
    this.records.set(index, stepRecordOf(file));
    this.trial.emit({
      type: 'step.end',
      trialId: spec.id,
      step: index,
      stepId: open.step.id,
      status: outcome.status,
      scores: outcome.scores,
    });
    await this.writeRecord();
  }

  /** A fault before any turn could run: the first step not complete takes it. */
  faultFirstPending(fault: StepFault): void {
    this.record.error = fault.message;
    this.trial.log('error', fault.message);
    const step = this.trial.task.steps.find((s) => !this.complete.has(s.index) && !this.records.has(s.index));
    if (!step) return;
    const open = this.open.get(step.index);
    this.records.set(step.index, {
      index: step.index,
      id: step.id,
      status: fault.status,
      turns: open?.turns ?? 0,
      startedAt: open?.startedAt,
      endedAt: new Date().toISOString(),
      durationMs: open ? Date.now() - open.startMs : 0,
      ...usageOf(open),
      ...toolsOf(open),
      scores: {},
    });
    this.open.delete(step.index);
  }

  /**
   * Steps the trial did not close: `cancelled` when the run was stopped; a step a halted turn
   * worked on takes the turn's status; steps never started are `skipped`.
   */
  closeRemaining(cancelled: boolean, halted: StepStatus | undefined): void {
    for (const step of this.trial.task.steps) {
      if (this.records.has(step.index)) continue;
      const open = this.open.get(step.index);
      this.records.set(step.index, {
        index: step.index,
        id: step.id,
        status: cancelled ? 'cancelled' : open && halted ? halted : 'skipped',
        turns: open?.turns ?? 0,
        startedAt: open?.startedAt,
        endedAt: open ? new Date().toISOString() : undefined,
        durationMs: open ? Date.now() - open.startMs : 0,
        ...usageOf(open),
        ...toolsOf(open),
        scores: {},
      });
    }
    this.sync();
  }

  /** The trial's status from its steps' (and whether the run was cancelled under it). */
  trialStatus(cancelled: boolean): Status {
    const statuses = this.record.steps.map((s) => s.status);
    if (cancelled || statuses.includes('cancelled')) return 'cancelled';
    const imposed = statuses.find((s) => s !== 'skipped' && !isAgentOutcome(s));
    if (imposed) return imposed as Status;
    if (this.record.error) return 'error:scorer';
    return statuses.includes('failed') ? 'failed' : 'ok';
  }

  /** Brings the record's steps and usage up to date (open steps' usage counts). */
  sync(): void {
    const steps = [...this.records.values()].sort((a, b) => a.index - b.index);
    const running = [...this.open.values()].map((o) => o.usage);
    this.record.steps = steps;
    this.record.usage = [...steps.map((s) => s.usage), ...running].reduce(addUsage, emptyUsage());
    const agent = [...steps, ...this.open.values()].flatMap((s) => (s.agentUsage ? [s.agentUsage] : []));
    if (agent.length > 0) this.record.agentUsage = agent.reduce(addUsage, emptyUsage());
  }

  async writeRecord(): Promise<void> {
    this.sync();
    await this.trial.store.writeTrial(this.record);
  }
}

function stepRecordOf(file: StepScoresFile): StepRecord {
  return {
    index: file.index,
    id: file.step,
    status: file.status,
    turns: file.turns,
    startedAt: file.startedAt,
    endedAt: file.endedAt,
    durationMs: file.durationMs,
    usage: file.usage,
    ...(file.agentUsage ? { agentUsage: file.agentUsage } : {}),
    ...(file.snapshot ? { snapshot: file.snapshot } : {}),
    ...(file.tools ? { tools: { calls: file.tools.calls, failed: file.tools.failed } } : {}),
    scores: file.scores,
  };
}
