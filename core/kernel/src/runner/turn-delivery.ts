import { appendFile, mkdir } from 'node:fs/promises';
import {
  addUsage,
  emptyUsage,
  type MemoryContext,
  type MemoryPatch,
  type Session,
  type Status,
  type Step,
  type TrajectoryEvent,
  type TurnPlan,
} from '../contracts/index.js';
import { settleWithin } from './faults.js';
import type { SandboxLifecycle } from './sandbox-lifecycle.js';
import type { OpenStep, StepClosing } from './step-closing.js';
import { guard, StepFault } from './step-fault.js';
import { isAgentOutcome, type TrialContext, type TrialPlugins } from './trial-context.js';
import { runTurn } from './turn.js';

/** One delivery of a turn: the message and the bounds it runs under. */
export interface TurnMessage {
  t: number;
  turn: TurnPlan;
  steps: Step[];
  /** The open step whose record takes the turn's usage (the first of `steps`). */
  owner: OpenStep;
  prompt: string;
  /** 0 for the turn itself, then one per feedback cycle. */
  cycle: number;
  timeoutMs: number;
  /** When the steps' pooled wall clock runs out, for the `turn.start` event. */
  deadline: number;
}

/**
 * Delivers turns to the agent: the memory plugin before and after, the session (opened, resumed
 * from an earlier attempt, or opened fresh), the prompt files and the turn itself with its
 * trajectory and usage.
 */
export class TurnDelivery {
  private session?: Session;
  private sessionEvents: TrajectoryEvent[] = [];
  /** The session was abandoned mid-turn: the next turn opens a fresh one. */
  private broken = false;
  /** A harness's session state from an earlier attempt, for the next session to resume. */
  private resumeState?: unknown;

  constructor(
    private readonly trial: TrialContext,
    private readonly plugins: TrialPlugins,
    private readonly sandboxes: SandboxLifecycle,
    private readonly steps: StepClosing,
  ) {}

  /** Picks up the session an interrupted attempt saved after turn `start - 1`, if the harness can. */
  async restore(start: number): Promise<void> {
    if (start === 0 || !this.plugins.harness.capabilities.resume) return;
    const saved = await this.trial.store.readSession(this.trial.spec.id);
    if (saved && saved.turn === start - 1) this.resumeState = saved.state;
  }

  /** Memory, session and the turn itself; returns the turn's status. */
  async deliver(message: TurnMessage): Promise<Status> {
    const { t, turn, steps, owner, prompt, cycle, timeoutMs } = message;
    const { spec, task, store, gateway } = this.trial;
    const { harness, memory } = this.plugins;
    const sandbox = this.sandboxes.current!;
    const memoryDir = store.memoryDir(spec.id);
    await mkdir(memoryDir, { recursive: true });
    let fresh =
      (!this.session && this.resumeState === undefined) ||
      this.broken ||
      (cycle === 0 && turn.session === 'fresh');
    const context = (): MemoryContext => ({
      task,
      plan: turn,
      turnIndex: t,
      sandbox,
      capabilities: harness.capabilities,
      stateDir: memoryDir,
      freshSession: fresh,
      sessionEvents: this.sessionEvents,
    });
    const patch: MemoryPatch = await guard(
      () => memory.beforeTurn(context()),
      'memory',
      this.trial.bound('memory.beforeTurn'),
    );
    for (const [path, content] of Object.entries(patch.files ?? {})) {
      await guard(
        () => sandbox.writeFile(path, content),
        'sandbox',
        this.trial.bound('writing memory files'),
      );
    }
    const text = [patch.prefix, prompt, patch.suffix].filter((part) => part).join('\n\n');
    for (const step of steps) {
      const file = store.stepFile(spec.id, step, 'prompt.md');
      // A step's later turns (after a planning turn, say) and feedback cycles append.
      const mark = cycle > 0 ? `feedback cycle ${cycle}` : `turn ${owner.turns + 1}`;
      if (cycle === 0 && owner.turns === 0) await store.writePrompt(spec.id, step, text);
      else await appendFile(file, `\n\n---\n\n<!-- ${mark} -->\n\n${text}`);
    }
    fresh ||= patch.restartSession === true;
    await this.ensureSession(fresh, turn);

    const focus = { task, steps, solution: steps[steps.length - 1]!.solution };
    gateway?.focus(spec.id, focus);
    // Faults of the trial's model calls outside the agent's turn (a judge while scoring, a memory
    // plugin's model before the turn) are logged here, never put in the turn's trajectory.
    for (const fault of gateway?.takeErrors?.(spec.id) ?? [])
      this.trial.log(
        'warn',
        `model gateway, outside the agent's turn: ${fault.errorClass}: ${fault.message}`,
      );
    this.trial.emit({
      type: 'turn.start',
      trialId: spec.id,
      turn: t,
      steps: turn.steps,
      cycle,
      deadline: new Date(message.deadline).toISOString(),
    });
    const trajectory = store.trajectory(spec.id, steps[0]!);
    this.steps.sync();
    const before = this.steps.record.usage;
    const run = await runTurn({
      session: this.session!,
      prompt: text,
      focus,
      timeoutMs,
      cancel: this.trial.cancellation.abortSignal,
      budget: { limitUsd: spec.limits.trialUsd, spentUsd: this.steps.spentUsd },
      takeGatewayUsage: gateway ? () => gateway.takeUsage(spec.id) : undefined,
      onMetered: (usage) =>
        this.trial.emit({ type: 'trial.usage', trialId: spec.id, usage: addUsage(before, usage) }),
      takeGatewayErrors: gateway?.takeErrors ? () => gateway.takeErrors?.(spec.id) ?? [] : undefined,
      abandonMs: this.trial.abandonMs,
      onEvent: (event) => {
        trajectory.append(event);
        owner.tools.add(event);
        this.sessionEvents.push(event);
        this.trial.emit({ type: 'trajectory', trialId: spec.id, turn: t, event });
      },
    });
    owner.turns++;
    owner.usage = addUsage(owner.usage, run.result.usage);
    if (run.result.agentUsage)
      owner.agentUsage = addUsage(owner.agentUsage ?? emptyUsage(), run.result.agentUsage);
    this.steps.spentUsd += run.result.usage.costUsd;
    this.steps.sync();
    this.trial.emit({ type: 'trial.usage', trialId: spec.id, usage: this.steps.record.usage });
    if (run.abandoned) this.broken = true;
    for (const fault of run.modelFaults)
      this.trial.log('warn', `model gateway: ${fault.errorClass}: ${fault.message}`);
    if (run.result.error)
      this.trial.log('warn', `turn ${t + 1} ended ${run.result.status}: ${run.result.error}`);
    if (run.result.status === 'cancelled') return 'cancelled';
    try {
      await guard(
        () => memory.afterTurn(context(), run.result, run.events),
        'memory',
        this.trial.bound('memory.afterTurn'),
      );
    } catch (error) {
      if (error instanceof StepFault && isAgentOutcome(run.result.status)) return error.status;
    }
    return run.result.status;
  }

  private async ensureSession(fresh: boolean, turn: TurnPlan): Promise<void> {
    if (this.session && !fresh) return;
    if (this.session) {
      await settleWithin(this.session.close(), this.trial.abandonMs);
      this.session = undefined;
    }
    const resume = !fresh && turn.session === 'continue' ? this.resumeState : undefined;
    this.resumeState = undefined;
    const sandbox = this.sandboxes.current!;
    const { spec } = this.trial;
    const model = this.sandboxes.model;
    this.session = await guard(
      () => this.plugins.harness.openSession(sandbox, { trialId: spec.id, resume, model }),
      'harness',
      this.trial.bound('harness.openSession'),
    );
    this.sessionEvents = [];
    this.broken = false;
  }

  /** Saves the session's state after turn `t`, so an interrupted trial can resume it. */
  async saveState(t: number): Promise<void> {
    const session = this.session;
    if (!this.plugins.harness.capabilities.resume || !session || this.broken) return;
    const state = await guard(() => session.state(), 'harness').catch(() => undefined);
    if (state !== undefined) await this.trial.store.writeSession(this.trial.spec.id, { turn: t, state });
  }

  /** Closes the session (bounded); the next turn opens a new one and resumes nothing. */
  async end(): Promise<void> {
    if (this.session) await settleWithin(this.session.close(), this.trial.abandonMs);
    this.session = undefined;
    this.resumeState = undefined;
  }
}
