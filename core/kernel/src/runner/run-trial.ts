import { appendFile, mkdir, rm } from 'node:fs/promises';
import { Container } from 'inversify';
import { writeTrialAtif } from '../atif/trial-atif.js';
import {
  addUsage,
  type Environment,
  type ErrorClass,
  emptyUsage,
  type Harness,
  harnessModel,
  type Memory,
  type MemoryContext,
  type MemoryPatch,
  type ModelEndpoint,
  type ModelGateway,
  type PluginKind,
  type PluginRef,
  type Sandbox,
  type Scorer,
  type Script,
  type Session,
  type SkippedFile,
  type SnapshotStore,
  type Status,
  type Step,
  type StepRecord,
  type StepStatus,
  type TrajectoryEvent,
  type TrialRecord,
  type TrialSpec,
  type TurnPlan,
  tokens,
  type Usage,
} from '../contracts/index.js';
import type { Release, Slots } from '../process/slots.js';
import { workspaceDiff } from '../store/diff.js';
import type { RunStore, StepScoresFile } from '../store/run-store.js';
import { readDirectoryFiles } from '../store/workspace-files.js';
import { formatSize } from '../workspace/file-size.js';
import { bounded, classifyAs, errorMessage, LimitExceeded, settleWithin } from './faults.js';
import { resumePoint } from './plan.js';
import type { TrialServices } from './services.js';
import { type NamedScorer, type StepOutcome, type StepScorer, scoreStep } from './step-scoring.js';
import { runTurn } from './turn.js';

/** A fault that ends the trial's current step with a classified status. */
class StepFault extends Error {
  constructor(
    readonly status: Status,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Runs a plugin call with a bound on its time (and the run's abort); a fault becomes a StepFault
 * with the class of the part that failed, a bound hit `timeout` or `cancelled`.
 */
async function guard<T>(
  work: () => Promise<T> | T,
  errorClass: ErrorClass,
  bound?: { ms: number; what: string; cancel: AbortSignal },
): Promise<T> {
  try {
    return bound ? await bounded(work, bound.ms, bound.what, bound.cancel) : await work();
  } catch (error) {
    if (error instanceof StepFault) throw error;
    if (error instanceof LimitExceeded) throw new StepFault(error.status, error.message);
    throw new StepFault(classifyAs(error, errorClass), errorMessage(error));
  }
}

/** A step the trial has started and not yet closed. */
interface OpenStep {
  step: Step;
  startedAt: string;
  startMs: number;
  turns: number;
  usage: Usage;
  agentUsage?: Usage;
}

/** A step's usage fields for its records: the metered usage, and the agent's own when it gave one. */
const usageOf = (open: OpenStep | undefined) => ({
  usage: open?.usage ?? emptyUsage(),
  ...(open?.agentUsage ? { agentUsage: open.agentUsage } : {}),
});

const isAgentOutcome = (status: StepStatus) => status === 'ok' || status === 'failed';
const closeMs = 15_000;
const sweepMs = 60_000;

/**
 * Runs one trial to its record (the per-turn lifecycle in the package README). Picks up where an
 * earlier attempt stopped: complete steps (those with a scores.json) are never run again.
 * Never throws for a fault of a plugin: faults end steps with classified statuses.
 */
export async function runTrial(spec: TrialSpec, services: TrialServices): Promise<TrialRecord> {
  return new TrialRun(spec, services).run();
}

class TrialRun {
  private readonly store: RunStore;
  private readonly container: Container;
  private readonly snapshots: SnapshotStore;
  private readonly gateway?: ModelGateway;
  /** This trial's view of the run's CPU budget (see Slots.forTrial). */
  private readonly slots?: Slots;
  private readonly abandonMs: number;
  private readonly records = new Map<number, StepRecord>();
  private readonly complete = new Set<number>();
  private readonly open = new Map<number, OpenStep>();
  private record!: TrialRecord;

  private environment!: Environment;
  private harness!: Harness;
  private memory!: Memory;
  private stepScorers: NamedScorer<StepScorer>[] = [];
  private trialScorers: NamedScorer<Scorer & { scope: 'trial' }>[] = [];
  private sandbox?: Sandbox;
  /** The current sandbox could not be swept: it is closed once the turn's steps are recorded. */
  private unswept = false;
  /** Whether a turn ran in the current sandbox (a turn asking for a fresh one then gets it). */
  private sandboxUsed = false;
  private session?: Session;
  private sessionEvents: TrajectoryEvent[] = [];
  private sessionBroken = false;
  private resumeState?: unknown;
  private model?: ModelEndpoint;
  /** The sandbox address `model` was made for. */
  private modelHost?: string;
  /** The agent program's version, from what `prepare` returned (for the ATIF export). */
  private agentVersion?: string;
  private previousSnapshot?: string;
  /** The workspace a fresh sandbox is to start from (kept if opening it fails). */
  private carried?: string;
  private spentUsd = 0;
  private cancelled = false;
  /** Set when a fault or limit stopped the trial (limits.onError: stop). */
  private halted?: StepStatus;

  constructor(
    private readonly spec: TrialSpec,
    private readonly services: TrialServices,
  ) {
    this.store = services.store;
    this.container = new Container({ parent: services.container });
    this.container.bind(tokens.Trial).toConstantValue(spec);
    // The trial's plugins (a tests scorer) take slots through the trial's view, ranked by when
    // the trial started, so that the trial ahead is served first.
    if (services.container.isBound(tokens.CaseSlots)) {
      this.slots = services.container.get(tokens.CaseSlots).forTrial();
      this.container.bind(tokens.CaseSlots).toConstantValue(this.slots);
    }
    this.snapshots = this.container.get(tokens.SnapshotStore);
    this.gateway = this.container.isBound(tokens.Gateway) ? this.container.get(tokens.Gateway) : undefined;
    this.abandonMs = services.abandonMs ?? 5000;
  }

  private get task() {
    return this.spec.task;
  }

  /** The bound on one plugin call outside a turn: the step's wall clock, and the run's abort. */
  private bound(what: string) {
    return { ms: this.spec.limits.stepMs, what, cancel: this.services.cancellation.abortSignal };
  }

  async run(): Promise<TrialRecord> {
    const started = Date.now();
    const prior = await this.store.readTrial(this.spec.id);
    await this.loadCompleteSteps();
    this.record = {
      id: this.spec.id,
      task: this.task.id,
      condition: this.spec.condition.key,
      repeat: this.spec.repeat,
      status: 'running',
      startedAt: prior?.startedAt ?? new Date().toISOString(),
      durationMs: prior?.durationMs ?? 0,
      usage: emptyUsage(),
      steps: [],
      scores: {},
    };
    this.services.emit({
      type: 'trial.start',
      trialId: this.spec.id,
      task: this.task.id,
      condition: this.spec.condition.key,
      steps: this.task.steps.length,
    });
    await this.writeRecord();
    try {
      const plan = await this.instantiate();
      const start = resumePoint(plan, this.complete);
      if (start < plan.length) await this.runTurns(plan, start);
      if (!this.cancelled) await this.scoreTrial();
    } catch (error) {
      const fault = error instanceof StepFault ? error : new StepFault('error:internal', errorMessage(error));
      this.faultFirstPendingStep(fault);
    } finally {
      await this.closeAll();
    }
    this.closeRemainingSteps();
    this.record.status = this.trialStatus();
    this.record.endedAt = new Date().toISOString();
    this.record.durationMs = (prior?.durationMs ?? 0) + (Date.now() - started);
    await this.writeRecord();
    await this.writeAtif();
    this.services.emit({
      type: 'trial.end',
      trialId: this.spec.id,
      status: this.record.status,
      usage: this.record.usage,
      durationMs: this.record.durationMs,
    });
    return this.record;
  }

  private async loadCompleteSteps(): Promise<void> {
    for (const step of this.task.steps) {
      const scores = await this.store.readStepScores(this.spec.id, step);
      if (!scores) continue;
      this.complete.add(step.index);
      this.records.set(step.index, stepRecordOf(scores));
      this.spentUsd += scores.usage.costUsd;
    }
  }

  private instantiateOne<T>(kind: PluginKind, ref: PluginRef, errorClass: ErrorClass): Promise<T> {
    return guard(() => this.services.plugins.instantiate<T>(this.container, kind, ref), errorClass);
  }

  private async instantiate(): Promise<TurnPlan[]> {
    const { condition } = this.spec;
    this.environment = await this.instantiateOne<Environment>(
      'environment',
      condition.environment,
      'sandbox',
    );
    this.harness = await this.instantiateOne<Harness>('harness', condition.harness, 'harness');
    this.memory = await this.instantiateOne<Memory>('memory', condition.memory, 'memory');
    const script = await this.instantiateOne<Script>('script', condition.script, 'internal');
    for (const ref of this.spec.scorers) {
      const scorer = await this.instantiateOne<Scorer>('scorer', ref, 'scorer');
      if (scorer.scope === 'step') this.stepScorers.push({ label: ref.label, scorer });
      if (scorer.scope === 'trial') this.trialScorers.push({ label: ref.label, scorer });
    }
    return guard(() => script.plan(this.task), 'internal');
  }

  private async runTurns(plan: TurnPlan[], start: number): Promise<void> {
    const from = this.lastCompleteSnapshot(plan, start);
    const sandbox = await this.openSandbox(from);
    this.previousSnapshot = from ?? (await this.snapshotOf(sandbox, 'the first snapshot'));
    const saved =
      start > 0 && this.harness.capabilities.resume ? await this.store.readSession(this.spec.id) : undefined;
    if (saved && saved.turn === start - 1) this.resumeState = saved.state;

    for (let t = start; t < plan.length; t++) {
      if (this.services.cancellation.stopSignal.aborted) {
        this.cancelled = true;
        return;
      }
      if (this.halted) return;
      await this.runPlannedTurn(t, plan[t]!);
      if (this.cancelled) return;
    }
  }

  /**
   * Opens the agent's sandbox (on `from`, or on the task's seed), prepares the harness in it and
   * gets the model endpoint for the address it reaches the host at.
   */
  private async openSandbox(from: string | undefined): Promise<Sandbox> {
    this.services.emit({ type: 'trial.phase', trialId: this.spec.id, phase: 'sandbox' });
    const sandbox = await guard(
      () =>
        this.environment.open({
          runId: this.spec.runId,
          trialId: this.spec.id,
          purpose: 'agent',
          task: { id: this.task.id, root: this.task.root, seed: this.task.seed },
          needs: this.task.environment,
          from,
        }),
      'sandbox',
      this.bound('opening the sandbox'),
    );
    this.sandbox = sandbox;
    this.sandboxUsed = false;
    const info = await guard(() => this.harness.prepare(sandbox), 'harness', this.bound('harness.prepare'));
    this.services.onPrepared?.(this.spec.condition.harness.label, info);
    this.agentVersion = agentVersion(info);
    const model = harnessModel(this.harness, this.spec.condition.harness.options);
    if (this.gateway && model !== null && (!this.model || this.modelHost !== sandbox.hostAddress)) {
      const gateway = this.gateway;
      this.model = await guard(
        () => gateway.endpoint(this.spec.id, sandbox.hostAddress, model),
        'model',
        this.bound('gateway.endpoint'),
      );
      this.modelHost = sandbox.hostAddress;
    }
    return sandbox;
  }

  /**
   * Moves the workspace into a new sandbox of the same environment (TurnPlan.sandbox `fresh`):
   * snapshot, close the session and the sandbox, open a new one on the snapshot. A sandbox lost
   * to a failed renewal is replaced from the last workspace the trial saw.
   */
  private async renewSandbox(t: number): Promise<void> {
    const old = this.sandbox;
    if (old) {
      this.carried = await this.snapshotOf(old, 'the snapshot for a fresh sandbox');
    }
    if (this.session) await settleWithin(this.session.close(), this.abandonMs);
    this.session = undefined;
    this.resumeState = undefined;
    this.sandbox = undefined;
    if (old) await settleWithin(old.close(), closeMs);
    const from = this.carried ?? this.previousSnapshot;
    const sandbox = await this.openSandbox(from);
    this.log('info', `turn ${t + 1}: workspace ${from ?? '(seed)'} moved into fresh sandbox ${sandbox.id}`);
  }

  /** The snapshot an interrupted trial continues from: that of the last turn it completed. */
  private lastCompleteSnapshot(plan: TurnPlan[], start: number): string | undefined {
    if (start === 0) return undefined;
    const scored = plan[start - 1]!.scores;
    return this.records.get(Math.max(...scored))?.snapshot;
  }

  private openStep(step: Step): OpenStep {
    let open = this.open.get(step.index);
    if (!open) {
      open = {
        step,
        startedAt: new Date().toISOString(),
        startMs: Date.now(),
        turns: 0,
        usage: emptyUsage(),
      };
      this.open.set(step.index, open);
      this.services.emit({ type: 'step.start', trialId: this.spec.id, step: step.index, stepId: step.id });
    }
    return open;
  }

  /** A turn over several steps (single-shot) pools their wall clock. */
  private deadline(owner: OpenStep, steps: Step[]): number {
    return owner.startMs + this.spec.limits.stepMs * steps.length;
  }

  private async runPlannedTurn(t: number, turn: TurnPlan): Promise<void> {
    const steps = turn.steps.map((i) => this.task.steps[i]!);
    for (const step of steps) {
      if (!this.open.has(step.index) && !this.complete.has(step.index)) {
        // A step that starts again after an interruption starts clean.
        await rm(this.store.stepDir(this.spec.id, step), { recursive: true, force: true });
        await mkdir(this.store.stepDir(this.spec.id, step), { recursive: true });
      }
    }
    const owner = this.openStep(steps[0]!);
    for (const step of steps.slice(1)) this.openStep(step);
    const deadline = this.deadline(owner, steps);
    // A turn over several steps (single-shot) pools their turn allowance, as it pools their wall clock.
    const allowed = this.spec.limits.turnsPerStep * steps.length;
    const maxCycles = Math.max(0, Math.min(turn.feedbackCycles, allowed - 1));

    let status: StepStatus = 'ok';
    let outcomes: Map<number, StepOutcome> | undefined;
    try {
      if (!this.sandbox || (turn.sandbox === 'fresh' && this.sandboxUsed)) await this.renewSandbox(t);
      this.sandboxUsed = true;
      await guard(() => this.applyWorkspaceAction(turn), 'sandbox', this.bound('the workspace reset'));
      await guard(() => this.hideStepFiles(steps), 'sandbox', this.bound('hiding the step files'));
      let prompt = turn.prompt;
      for (let cycle = 0; ; cycle++) {
        outcomes = undefined;
        if (cycle > 0 && this.services.cancellation.stopSignal.aborted) {
          status = 'cancelled';
          break;
        }
        const limit = this.spec.limits;
        if (limit.trialUsd > 0 && this.spentUsd >= limit.trialUsd) {
          status = 'budget';
          break;
        }
        const timeoutMs = Math.min(limit.turnMs, deadline - Date.now());
        if (timeoutMs <= 0) {
          status = 'timeout';
          break;
        }
        status = await this.deliverTurn(t, turn, steps, owner, prompt, cycle, timeoutMs);
        if (status === 'cancelled' || turn.scores.length === 0) break;
        outcomes = await this.scoreTurn(turn, status);
        const scoredStatuses = [...outcomes.values()].map((o) => o.status);
        if (scoredStatuses.includes('cancelled')) {
          status = 'cancelled';
          break;
        }
        const feedback = [...outcomes.values()].flatMap((o) => o.feedback);
        const canRetry =
          cycle < maxCycles && isAgentOutcome(status) && feedback.length > 0 && Date.now() < deadline;
        if (!canRetry) break;
        prompt = feedbackPrompt(feedback);
      }
    } catch (error) {
      if (!(error instanceof StepFault)) throw error;
      status = error.status;
      this.log('error', `${steps[0]!.id}: ${error.message}`);
    }

    if (status === 'cancelled') {
      this.cancelled = true;
      return;
    }
    if (turn.scores.length > 0) {
      outcomes ??= await this.scoreTurn(turn, status);
      for (const i of turn.scores) await this.closeStep(i, outcomes.get(i)!);
      if (this.unswept) await this.retireSandbox();
    }
    const imposed = [status, ...[...(outcomes?.values() ?? [])].map((o) => o.status)].find(
      (s) => !isAgentOutcome(s),
    );
    if (imposed && this.spec.limits.onError === 'stop') this.halted = imposed;
    if (this.harness.capabilities.resume && this.session && !this.sessionBroken && turn.scores.length > 0) {
      const session = this.session;
      const state = await guard(() => session.state(), 'harness').catch(() => undefined);
      if (state !== undefined) await this.store.writeSession(this.spec.id, { turn: t, state });
    }
  }

  /**
   * Ends what the turn left running in the sandbox (background processes, detached daemons)
   * before its steps are snapshotted: the snapshot is what the step left, and nothing of it runs
   * on into a feedback cycle or the next step. A sandbox that cannot be swept is retired once
   * its steps are recorded.
   */
  private async sweepSandbox(): Promise<void> {
    const sandbox = this.sandbox;
    if (!sandbox?.sweep) return;
    try {
      await bounded(() => sandbox.sweep!(), sweepMs, 'sandbox.sweep', this.services.cancellation.abortSignal);
    } catch (error) {
      this.log(
        'error',
        `ending the step's processes in sandbox ${sandbox.id} failed: ${errorMessage(error)}`,
      );
      this.unswept = true;
    }
  }

  /** Closes the sandbox; the next turn gets a fresh one on the last snapshot. */
  private async retireSandbox(): Promise<void> {
    const sandbox = this.sandbox;
    this.unswept = false;
    this.sandbox = undefined;
    this.carried = undefined;
    if (sandbox) await settleWithin(sandbox.close(), closeMs);
  }

  private async applyWorkspaceAction(turn: TurnPlan): Promise<void> {
    if (turn.workspace.action !== 'reset') return;
    const k = turn.workspace.afterStep;
    const dir = k < 0 ? this.task.seed : this.task.steps[k]?.solution;
    if (k >= 0 && !dir)
      throw new StepFault('error:internal', `step ${k + 1} has no reference solution to reset to`);
    await this.sandbox!.push(dir ? await readDirectoryFiles(dir) : []);
  }

  /** Removes what the steps hide from the agent (Step.hidden), after the workspace action. */
  private async hideStepFiles(steps: Step[]): Promise<void> {
    for (const path of steps.flatMap((step) => step.hidden ?? [])) await this.sandbox!.remove(path);
  }

  /** Memory, session and the turn itself; returns the turn's status. */
  private async deliverTurn(
    t: number,
    turn: TurnPlan,
    steps: Step[],
    owner: OpenStep,
    prompt: string,
    cycle: number,
    timeoutMs: number,
  ): Promise<Status> {
    const sandbox = this.sandbox!;
    const memoryDir = this.store.memoryDir(this.spec.id);
    await mkdir(memoryDir, { recursive: true });
    let fresh =
      (!this.session && this.resumeState === undefined) ||
      this.sessionBroken ||
      (cycle === 0 && turn.session === 'fresh');
    const context = (): MemoryContext => ({
      task: this.task,
      plan: turn,
      turnIndex: t,
      sandbox,
      capabilities: this.harness.capabilities,
      stateDir: memoryDir,
      freshSession: fresh,
      sessionEvents: this.sessionEvents,
    });
    const patch: MemoryPatch = await guard(
      () => this.memory.beforeTurn(context()),
      'memory',
      this.bound('memory.beforeTurn'),
    );
    for (const [path, content] of Object.entries(patch.files ?? {})) {
      await guard(() => sandbox.writeFile(path, content), 'sandbox', this.bound('writing memory files'));
    }
    const text = [patch.prefix, prompt, patch.suffix].filter((part) => part).join('\n\n');
    for (const step of steps) {
      const file = this.store.stepFile(this.spec.id, step, 'prompt.md');
      // A step's later turns (after a planning turn, say) and feedback cycles append.
      const mark = cycle > 0 ? `feedback cycle ${cycle}` : `turn ${owner.turns + 1}`;
      if (cycle === 0 && owner.turns === 0) await this.store.writePrompt(this.spec.id, step, text);
      else await appendFile(file, `\n\n---\n\n<!-- ${mark} -->\n\n${text}`);
    }
    fresh ||= patch.restartSession === true;
    await this.ensureSession(fresh, turn);

    const focus = { task: this.task, steps, solution: steps[steps.length - 1]!.solution };
    this.gateway?.focus(this.spec.id, focus);
    // Faults of the trial's model calls outside the agent's turn (a judge while scoring, a memory
    // plugin's model before the turn) are logged here, never put in the turn's trajectory.
    for (const fault of this.gateway?.takeErrors?.(this.spec.id) ?? [])
      this.log('warn', `model gateway, outside the agent's turn: ${fault.errorClass}: ${fault.message}`);
    this.services.emit({
      type: 'turn.start',
      trialId: this.spec.id,
      turn: t,
      steps: turn.steps,
      cycle,
      deadline: new Date(this.deadline(owner, steps)).toISOString(),
    });
    const trajectory = this.store.trajectory(this.spec.id, steps[0]!);
    const gateway = this.gateway;
    this.syncRecord();
    const before = this.record.usage;
    const run = await runTurn({
      session: this.session!,
      prompt: text,
      focus,
      timeoutMs,
      cancel: this.services.cancellation.abortSignal,
      budget: { limitUsd: this.spec.limits.trialUsd, spentUsd: this.spentUsd },
      takeGatewayUsage: gateway ? () => gateway.takeUsage(this.spec.id) : undefined,
      onMetered: (usage) =>
        this.services.emit({ type: 'trial.usage', trialId: this.spec.id, usage: addUsage(before, usage) }),
      takeGatewayErrors: gateway?.takeErrors ? () => gateway.takeErrors?.(this.spec.id) ?? [] : undefined,
      abandonMs: this.abandonMs,
      onEvent: (event) => {
        trajectory.append(event);
        this.sessionEvents.push(event);
        this.services.emit({ type: 'trajectory', trialId: this.spec.id, turn: t, event });
      },
    });
    owner.turns++;
    owner.usage = addUsage(owner.usage, run.result.usage);
    if (run.result.agentUsage)
      owner.agentUsage = addUsage(owner.agentUsage ?? emptyUsage(), run.result.agentUsage);
    this.spentUsd += run.result.usage.costUsd;
    this.syncRecord();
    this.services.emit({ type: 'trial.usage', trialId: this.spec.id, usage: this.record.usage });
    if (run.abandoned) this.sessionBroken = true;
    for (const fault of run.modelFaults)
      this.log('warn', `model gateway: ${fault.errorClass}: ${fault.message}`);
    if (run.result.error) this.log('warn', `turn ${t + 1} ended ${run.result.status}: ${run.result.error}`);
    if (run.result.status === 'cancelled') return 'cancelled';
    try {
      await guard(
        () => this.memory.afterTurn(context(), run.result, run.events),
        'memory',
        this.bound('memory.afterTurn'),
      );
    } catch (error) {
      if (error instanceof StepFault && isAgentOutcome(run.result.status)) return error.status;
    }
    return run.result.status;
  }

  private async ensureSession(fresh: boolean, turn: TurnPlan): Promise<void> {
    if (this.session && !fresh) return;
    if (this.session) {
      await settleWithin(this.session.close(), this.abandonMs);
      this.session = undefined;
    }
    const resume = !fresh && turn.session === 'continue' ? this.resumeState : undefined;
    this.resumeState = undefined;
    const sandbox = this.sandbox!;
    this.session = await guard(
      () => this.harness.openSession(sandbox, { trialId: this.spec.id, resume, model: this.model }),
      'harness',
      this.bound('harness.openSession'),
    );
    this.sessionEvents = [];
    this.sessionBroken = false;
  }

  /**
   * One slot of the run's CPU budget (tokens.CaseSlots), for the trial's own work on the runner:
   * snapshots and diffs then take turns with the cases of every trial instead of adding to them.
   * Rejects with LimitExceeded `cancelled` when the run is aborted while waiting.
   */
  private async cpuSlot(): Promise<Release> {
    if (!this.slots) return () => undefined;
    const signal = this.services.cancellation.abortSignal;
    return this.slots.acquire(signal).catch((error: unknown) => {
      if (signal.aborted) throw new LimitExceeded('cancelled', 'waiting for a CPU slot was cancelled');
      throw error;
    });
  }

  /** A snapshot of `sandbox` outside scoring, taken holding a CPU slot. */
  private async snapshotOf(sandbox: Sandbox, what: string): Promise<string> {
    const release = await guard(() => this.cpuSlot(), 'sandbox');
    try {
      return await guard(() => sandbox.snapshot(), 'sandbox', this.bound(what));
    } finally {
      release();
    }
  }

  /** Snapshot, diff and step scorers for the steps a turn closes. */
  private async scoreTurn(turn: TurnPlan, status: StepStatus): Promise<Map<number, StepOutcome>> {
    this.services.emit({ type: 'trial.phase', trialId: this.spec.id, phase: 'scoring' });
    await this.sweepSandbox();
    const outcomes = new Map<number, StepOutcome>();
    // Held for the snapshot and the diff, and given back before the scorers, which take slots
    // of their own (holding one across them could leave every slot waiting on another).
    let release: Release = () => undefined;
    let ref: string;
    try {
      release = await this.cpuSlot();
      const sandbox = this.sandbox!;
      ref = await bounded(
        () => sandbox.snapshot(),
        this.spec.limits.stepMs,
        'the snapshot',
        this.services.cancellation.abortSignal,
      );
    } catch (error) {
      release();
      const cancelled = error instanceof LimitExceeded && error.status === 'cancelled';
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
    let diff: string;
    let skipped: { before: SkippedFile[]; after: SkippedFile[] };
    try {
      const before = this.previousSnapshot ? await this.snapshots.get(this.previousSnapshot) : [];
      const after = await this.snapshots.get(ref);
      skipped = {
        before: this.previousSnapshot ? await this.snapshots.skipped(this.previousSnapshot) : [],
        after: await this.snapshots.skipped(ref),
      };
      diff = workspaceDiff(before, after, skipped);
    } finally {
      release();
    }
    const stepIds = turn.scores.map((i) => this.task.steps[i]!.id).join(', ');
    for (const file of skipped.after) {
      const size = formatSize(file.size);
      this.log(
        'warn',
        `${stepIds}: ${file.path} (${size}) is over the environment's maxFileSize: not in the snapshot`,
      );
    }
    let previous = this.previousSnapshot;
    for (const i of turn.scores) {
      const step = this.task.steps[i]!;
      await this.store.writeSnapshotRef(this.spec.id, step, ref);
      await this.store.writeDiff(this.spec.id, step, previous === this.previousSnapshot ? diff : '');
      const outcome = await scoreStep(this.stepScorers, {
        task: this.task,
        step,
        trial: this.spec,
        snapshot: ref,
        previous,
        snapshots: this.snapshots,
        environment: this.environment,
        outDir: await this.store.testsDir(this.spec.id, step),
        status,
        signal: this.services.cancellation.abortSignal,
        timeoutMs: this.spec.limits.stepMs,
      });
      const details =
        skipped.after.length > 0
          ? { ...outcome.details, snapshot: { skipped: skipped.after } }
          : outcome.details;
      outcomes.set(i, { ...outcome, details, snapshot: ref });
      previous = ref;
    }
    return outcomes;
  }

  /** Writes scores.json (last: it marks the step complete) and the step's record. */
  private async closeStep(index: number, outcome: StepOutcome): Promise<void> {
    if (this.complete.has(index)) return;
    const open = this.openStep(this.task.steps[index]!);
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
    };
    await this.store.writeStepScores(this.spec.id, open.step, file);
    if (outcome.snapshot) this.previousSnapshot = outcome.snapshot;
    this.complete.add(index);
    this.open.delete(index);
    this.records.set(index, stepRecordOf(file));
    this.services.emit({
      type: 'step.end',
      trialId: this.spec.id,
      step: index,
      stepId: open.step.id,
      status: outcome.status,
      scores: outcome.scores,
    });
    await this.writeRecord();
  }

  private async scoreTrial(): Promise<void> {
    if (this.trialScorers.length === 0) return;
    const events: TrajectoryEvent[] = [];
    for (const step of this.task.steps) events.push(...(await this.store.readTrajectory(this.spec.id, step)));
    this.syncRecord();
    for (const { label, scorer } of this.trialScorers) {
      try {
        const scores = await bounded(
          () =>
            scorer.score({
              trial: this.spec,
              record: this.record,
              events,
              snapshots: this.snapshots,
              trialDir: this.store.trialDir(this.spec.id),
            }),
          this.spec.limits.stepMs,
          `trial scorer ${label}`,
          this.services.cancellation.abortSignal,
        );
        for (const score of scores) this.record.scores[`${label}.${score.metric}`] = score.value;
      } catch (error) {
        // Taken away mid-score (the run cancelled, a worker that lost its job): not the scorer's fault.
        if (classifyAs(error, 'scorer', this.services.cancellation.abortSignal) === 'cancelled') {
          this.cancelled = true;
          return;
        }
        this.record.error = `trial scorer ${label}: ${errorMessage(error)}`;
        this.log('error', this.record.error);
      }
    }
  }

  /** A fault before any turn could run: the first step not complete takes it. */
  private faultFirstPendingStep(fault: StepFault): void {
    if (fault.status === 'cancelled') this.cancelled = true;
    this.record.error = fault.message;
    this.log('error', fault.message);
    const step = this.task.steps.find((s) => !this.complete.has(s.index) && !this.records.has(s.index));
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
      scores: {},
    });
    this.open.delete(step.index);
  }

  /**
   * Steps the trial did not close: `cancelled` when the run was stopped; a step a halted turn
   * worked on takes the turn's status; steps never started are `skipped`.
   */
  private closeRemainingSteps(): void {
    for (const step of this.task.steps) {
      if (this.records.has(step.index)) continue;
      const open = this.open.get(step.index);
      this.records.set(step.index, {
        index: step.index,
        id: step.id,
        status: this.cancelled ? 'cancelled' : open && this.halted ? this.halted : 'skipped',
        turns: open?.turns ?? 0,
        startedAt: open?.startedAt,
        endedAt: open ? new Date().toISOString() : undefined,
        durationMs: open ? Date.now() - open.startMs : 0,
        ...usageOf(open),
        scores: {},
      });
    }
    this.syncRecord();
  }

  private trialStatus(): Status {
    const statuses = this.record.steps.map((s) => s.status);
    if (this.cancelled || statuses.includes('cancelled')) return 'cancelled';
    const imposed = statuses.find((s) => s !== 'skipped' && !isAgentOutcome(s));
    if (imposed) return imposed as Status;
    if (this.record.error) return 'error:scorer';
    return statuses.includes('failed') ? 'failed' : 'ok';
  }

  private syncRecord(): void {
    const steps = [...this.records.values()].sort((a, b) => a.index - b.index);
    const running = [...this.open.values()].map((o) => o.usage);
    this.record.steps = steps;
    this.record.usage = [...steps.map((s) => s.usage), ...running].reduce(addUsage, emptyUsage());
    const agent = [...steps, ...this.open.values()].flatMap((s) => (s.agentUsage ? [s.agentUsage] : []));
    if (agent.length > 0) this.record.agentUsage = agent.reduce(addUsage, emptyUsage());
  }

  /** trials/<id>/trajectory.atif.json; a failure to write it is logged, never the trial's fault. */
  private async writeAtif(): Promise<void> {
    const meta = {
      agent: this.spec.condition.harness.id,
      version: this.agentVersion,
      model: this.spec.condition.model,
      usage: this.record.usage,
    };
    await writeTrialAtif(this.store, this.spec.id, this.task.steps, meta).catch((error: unknown) =>
      this.services.emit({
        type: 'log',
        level: 'warn',
        trialId: this.spec.id,
        message: `could not write the ATIF trajectory: ${errorMessage(error)}`,
      }),
    );
  }

  private async writeRecord(): Promise<void> {
    this.syncRecord();
    await this.store.writeTrial(this.record);
  }

  private async closeAll(): Promise<void> {
    try {
      if (this.session) await settleWithin(this.session.close(), this.abandonMs);
      if (this.sandbox) await settleWithin(this.sandbox.close(), closeMs);
    } finally {
      // The trial's tokens end with it, however it ended.
      this.gateway?.release(this.spec.id);
    }
  }

  private log(level: 'info' | 'warn' | 'error', message: string): void {
    this.services.emit({ type: 'log', level, message, trialId: this.spec.id });
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
    scores: file.scores,
  };
}

function feedbackPrompt(feedback: string[]): string {
  return [
    'Your work on this step was checked, and some checks did not pass:',
    ...feedback,
    'Fix these problems.',
  ].join('\n\n');
}

/** The `version` in what a harness's `prepare` returned (`{<agent>: {version}}` or `{version}`). */
function agentVersion(info: Record<string, unknown>): string | undefined {
  const candidates = [info, ...Object.values(info)];
  for (const candidate of candidates) {
    const version = (candidate as { version?: unknown } | null)?.version;
    if (typeof version === 'string') return version;
  }
  return undefined;
}
