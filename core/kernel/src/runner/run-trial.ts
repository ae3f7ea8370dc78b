import { mkdir, rm } from 'node:fs/promises';
import { writeTrialAtif } from '../atif/trial-atif.js';
import type {
  Environment,
  ErrorClass,
  Harness,
  Memory,
  PluginKind,
  PluginRef,
  Scorer,
  Script,
  Step,
  StepStatus,
  TrialRecord,
  TrialSpec,
  TurnPlan,
} from '../contracts/index.js';
import { snapshotDiff } from '../store/diff.js';
import { errorMessage } from './faults.js';
import { resumePoint } from './plan.js';
import { SandboxLifecycle } from './sandbox-lifecycle.js';
import type { TrialServices } from './services.js';
import { StepClosing } from './step-closing.js';
import { guard, StepFault } from './step-fault.js';
import type { StepOutcome } from './step-scoring.js';
import { isAgentOutcome, TrialContext, type TrialPlugins } from './trial-context.js';
import { scoreTrial } from './trial-scoring.js';
import { TurnDelivery } from './turn-delivery.js';
import { scoreTurn } from './turn-scoring.js';

/**
 * Runs one trial to its record (the per-turn lifecycle in the package README). Picks up where an
 * earlier attempt stopped: complete steps (those with a scores.json) are never run again.
 * Never throws for a fault of a plugin: faults end steps with classified statuses.
 *
 * The parts: the sandbox's lifecycle (sandbox-lifecycle.ts), delivering turns (turn-delivery.ts),
 * scoring a turn's steps (turn-scoring.ts, step-scoring.ts) and closing them (step-closing.ts),
 * then the trial scorers (trial-scoring.ts). This file runs the plan's turns through them.
 */
export async function runTrial(spec: TrialSpec, services: TrialServices): Promise<TrialRecord> {
  return new TrialRun(new TrialContext(spec, services)).run();
}

class TrialRun {
  private plugins?: TrialPlugins;
  private sandboxes?: SandboxLifecycle;
  private delivery?: TurnDelivery;
  private steps!: StepClosing;
  private cancelled = false;
  /** Set when a fault or limit stopped the trial (limits.onError: stop). */
  private halted?: StepStatus;

  constructor(private readonly trial: TrialContext) {}

  async run(): Promise<TrialRecord> {
    const { spec, store, task } = this.trial;
    const started = Date.now();
    const prior = await store.readTrial(spec.id);
    this.steps = new StepClosing(this.trial, prior);
    await this.steps.loadComplete();
    this.trial.emit({
      type: 'trial.start',
      trialId: spec.id,
      task: task.id,
      condition: spec.condition.key,
      steps: task.steps.length,
    });
    await this.steps.writeRecord();
    try {
      const plan = await this.instantiate();
      const start = resumePoint(plan, this.steps.completeSteps);
      if (start < plan.length) await this.runTurns(plan, start);
      if (!this.cancelled && (await scoreTrial(this.trial, this.plugins!, this.steps)) === 'cancelled')
        this.cancelled = true;
    } catch (error) {
      const fault = error instanceof StepFault ? error : new StepFault('error:internal', errorMessage(error));
      if (fault.status === 'cancelled') this.cancelled = true;
      this.steps.faultFirstPending(fault);
    } finally {
      await this.closeAll();
    }
    const record = this.steps.record;
    this.steps.closeRemaining(this.cancelled, this.halted);
    record.status = this.steps.trialStatus(this.cancelled);
    record.endedAt = new Date().toISOString();
    record.durationMs = (prior?.durationMs ?? 0) + (Date.now() - started);
    await this.steps.writeRecord();
    await this.writeAtif();
    this.trial.emit({
      type: 'trial.end',
      trialId: spec.id,
      status: record.status,
      usage: record.usage,
      durationMs: record.durationMs,
    });
    return record;
  }

  private instantiateOne<T>(kind: PluginKind, ref: PluginRef, errorClass: ErrorClass): Promise<T> {
    const { services, container } = this.trial;
    return guard(() => services.plugins.instantiate<T>(container, kind, ref), errorClass);
  }

  private async instantiate(): Promise<TurnPlan[]> {
    const { condition } = this.trial.spec;
    const plugins: TrialPlugins = {
      environment: await this.instantiateOne<Environment>('environment', condition.environment, 'sandbox'),
      harness: await this.instantiateOne<Harness>('harness', condition.harness, 'harness'),
      memory: await this.instantiateOne<Memory>('memory', condition.memory, 'memory'),
      stepScorers: [],
      trialScorers: [],
    };
    this.plugins = plugins;
    this.sandboxes = new SandboxLifecycle(this.trial, plugins);
    this.delivery = new TurnDelivery(this.trial, plugins, this.sandboxes, this.steps);
    const script = await this.instantiateOne<Script>('script', condition.script, 'internal');
    for (const ref of this.trial.spec.scorers) {
      const scorer = await this.instantiateOne<Scorer>('scorer', ref, 'scorer');
      if (scorer.scope === 'step') plugins.stepScorers.push({ label: ref.label, scorer });
      if (scorer.scope === 'trial') plugins.trialScorers.push({ label: ref.label, scorer });
    }
    return guard(() => script.plan(this.trial.task), 'internal');
  }

  private async runTurns(plan: TurnPlan[], start: number): Promise<void> {
    const sandboxes = this.sandboxes!;
    const from = this.steps.lastCompleteSnapshot(plan, start);
    const sandbox = await sandboxes.open(from);
    this.steps.previousSnapshot = from ?? (await sandboxes.snapshotOf(sandbox, 'the first snapshot'));
    await this.delivery!.restore(start);

    for (let t = start; t < plan.length; t++) {
      if (this.trial.cancellation.stopSignal.aborted) {
        this.cancelled = true;
        return;
      }
      if (this.halted) return;
      await this.runPlannedTurn(t, plan[t]!);
      if (this.cancelled) return;
    }
  }

  private async runPlannedTurn(t: number, turn: TurnPlan): Promise<void> {
    const { spec, task, store } = this.trial;
    const sandboxes = this.sandboxes!;
    const delivery = this.delivery!;
    const steps = turn.steps.map((i) => task.steps[i]!);
    for (const step of steps) {
      if (this.steps.untouched(step.index)) {
        // A step that starts again after an interruption starts clean.
        await rm(store.stepDir(spec.id, step), { recursive: true, force: true });
        await mkdir(store.stepDir(spec.id, step), { recursive: true });
      }
    }
    const owner = this.steps.start(steps[0]!);
    for (const step of steps.slice(1)) this.steps.start(step);
    // A turn over several steps (single-shot) pools their wall clock and their turn allowance.
    const deadline = owner.startMs + spec.limits.stepMs * steps.length;
    const allowed = spec.limits.turnsPerStep * steps.length;
    const maxCycles = Math.max(0, Math.min(turn.feedbackCycles, allowed - 1));
    const score = (status: StepStatus) =>
      scoreTurn(this.trial, this.plugins!, sandboxes, this.steps, turn, status);

    let status: StepStatus = 'ok';
    let outcomes: Map<number, StepOutcome> | undefined;
    try {
      if (!sandboxes.current || (turn.sandbox === 'fresh' && sandboxes.used))
        await sandboxes.renew(t, this.steps.previousSnapshot, () => delivery.end());
      sandboxes.used = true;
      await sandboxes.prepareTurn(turn, steps);
      await this.recordReset(turn, steps, sandboxes);
      let prompt = turn.prompt;
      for (let cycle = 0; ; cycle++) {
        outcomes = undefined;
        if (cycle > 0 && this.trial.cancellation.stopSignal.aborted) {
          status = 'cancelled';
          break;
        }
        const limit = spec.limits;
        if (limit.trialUsd > 0 && this.steps.spentUsd >= limit.trialUsd) {
          status = 'budget';
          break;
        }
        const timeoutMs = Math.min(limit.turnMs, deadline - Date.now());
        if (timeoutMs <= 0) {
          status = 'timeout';
          break;
        }
        status = await delivery.deliver({ t, turn, steps, owner, prompt, cycle, timeoutMs, deadline });
        if (status === 'cancelled' || turn.scores.length === 0) break;
        outcomes = await score(status);
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
      this.trial.log('error', `${steps[0]!.id}: ${error.message}`);
    }

    if (status === 'cancelled') {
      this.cancelled = true;
      return;
    }
    if (turn.scores.length > 0) {
      outcomes ??= await score(status);
      // Scoring the run cut short scored nothing: the steps stay open for resume to run again.
      if ([...outcomes.values()].some((o) => o.status === 'cancelled')) {
        this.cancelled = true;
        return;
      }
      for (const i of turn.scores) await this.steps.close(i, outcomes.get(i)!);
      await sandboxes.retireIfUnswept();
    }
    const imposed = [status, ...[...(outcomes?.values() ?? [])].map((o) => o.status)].find(
      (s) => !isAgentOutcome(s),
    );
    if (imposed && spec.limits.onError === 'stop') this.halted = imposed;
    if (turn.scores.length > 0) await delivery.saveState(t);
  }

  /** trials/<id>/trajectory.atif.json; a failure to write it is logged, never the trial's fault. */
  /**
   * When the runner changed the workspace before the turn (reset to a reference, hid the step's
   * files), snapshots what the agent is given: the step's diff.patch starts there, and
   * reset.patch records the runner's change from the last step's snapshot.
   */
  private async recordReset(turn: TurnPlan, steps: Step[], sandboxes: SandboxLifecycle): Promise<void> {
    this.steps.givenSnapshot = undefined;
    const hides = steps.some((step) => (step.hidden ?? []).length > 0);
    if (turn.workspace.action !== 'reset' && !hides) return;
    const { snapshots, store, spec } = this.trial;
    const given = await sandboxes.snapshotOf(sandboxes.current!, 'the snapshot of the workspace given');
    const start = this.steps.previousSnapshot;
    await guard(() => store.writeReset(spec.id, steps[0]!, snapshotDiff(snapshots, start, given)), 'sandbox');
    this.steps.givenSnapshot = given;
  }

  private async writeAtif(): Promise<void> {
    const { spec, store, task } = this.trial;
    const meta = {
      agent: spec.condition.harness.id,
      version: this.sandboxes?.agentVersion,
      model: spec.condition.model,
      usage: this.steps.record.usage,
    };
    await writeTrialAtif(store, spec.id, task.steps, meta).catch((error: unknown) =>
      this.trial.log('warn', `could not write the ATIF trajectory: ${errorMessage(error)}`),
    );
  }

  private async closeAll(): Promise<void> {
    try {
      await this.delivery?.end();
      await this.sandboxes?.close();
    } finally {
      // The trial's tokens end with it, however it ended.
      this.trial.gateway?.release(this.trial.spec.id);
    }
  }
}

function feedbackPrompt(feedback: string[]): string {
  return [
    'Your work on this step was checked, and some checks did not pass:',
    ...feedback,
    'Fix these problems.',
  ].join('\n\n');
}
