import {
  harnessModel,
  type ModelEndpoint,
  type Sandbox,
  type Step,
  type TurnPlan,
} from '../contracts/index.js';
import { readDirectoryFiles } from '../store/workspace-files.js';
import { bounded, errorMessage, settleWithin } from './faults.js';
import { guard, StepFault } from './step-fault.js';
import { closeMs, type TrialContext, type TrialPlugins } from './trial-context.js';

const sweepMs = 60_000;

/**
 * The agent's sandbox over a trial: opened (and the harness prepared in it, the model endpoint
 * made for its host address), renewed when a turn asks for a fresh one, swept of what a turn left
 * running, retired when it cannot be swept, and closed with the trial.
 */
export class SandboxLifecycle {
  /** The sandbox the agent works in, when one is open. */
  current?: Sandbox;
  /** Whether a turn ran in the current sandbox (a turn asking for a fresh one then gets it). */
  used = false;
  /** The endpoint the agent reaches the model through. */
  model?: ModelEndpoint;
  /** The agent program's version, from what `prepare` returned (for the ATIF export). */
  agentVersion?: string;
  /** The current sandbox could not be swept: it is closed once the turn's steps are recorded. */
  private unswept = false;
  /** The sandbox address `model` was made for. */
  private modelHost?: string;
  /** The workspace a fresh sandbox is to start from (kept if opening it fails). */
  private carried?: string;

  constructor(
    private readonly trial: TrialContext,
    private readonly plugins: TrialPlugins,
  ) {}

  /**
   * Opens the agent's sandbox (on `from`, or on the task's seed), prepares the harness in it and
   * gets the model endpoint for the address it reaches the host at.
   */
  async open(from: string | undefined): Promise<Sandbox> {
    const { spec, task } = this.trial;
    const { environment, harness } = this.plugins;
    this.trial.emit({ type: 'trial.phase', trialId: spec.id, phase: 'sandbox' });
    const sandbox = await guard(
      () =>
        environment.open({
          runId: spec.runId,
          trialId: spec.id,
          purpose: 'agent',
          task: { id: task.id, root: task.root, seed: task.seed },
          needs: task.environment,
          from,
        }),
      'sandbox',
      this.trial.bound('opening the sandbox'),
    );
    this.current = sandbox;
    this.used = false;
    const info = await guard(() => harness.prepare(sandbox), 'harness', this.trial.bound('harness.prepare'));
    this.trial.services.onPrepared?.(spec.condition.harness.label, info);
    this.agentVersion = agentVersion(info);
    const model = harnessModel(harness, spec.condition.harness.options);
    const gateway = this.trial.gateway;
    if (gateway && model !== null && (!this.model || this.modelHost !== sandbox.hostAddress)) {
      this.model = await guard(
        () => gateway.endpoint(spec.id, sandbox.hostAddress, model),
        'model',
        this.trial.bound('gateway.endpoint'),
      );
      this.modelHost = sandbox.hostAddress;
    }
    return sandbox;
  }

  /**
   * Moves the workspace into a new sandbox of the same environment (TurnPlan.sandbox `fresh`):
   * snapshot, end the session, close the sandbox, open a new one on the snapshot. A sandbox lost
   * to a failed renewal is replaced from `previous`, the last workspace the trial saw.
   */
  async renew(t: number, previous: string | undefined, endSession: () => Promise<void>): Promise<void> {
    const old = this.current;
    if (old) this.carried = await this.snapshotOf(old, 'the snapshot for a fresh sandbox');
    await endSession();
    this.current = undefined;
    if (old) await settleWithin(old.close(), closeMs);
    const from = this.carried ?? previous;
    const sandbox = await this.open(from);
    this.trial.log(
      'info',
      `turn ${t + 1}: workspace ${from ?? '(seed)'} moved into fresh sandbox ${sandbox.id}`,
    );
  }

  /**
   * Ends what the turn left running in the sandbox (background processes, detached daemons)
   * before its steps are snapshotted: the snapshot is what the step left, and nothing of it runs
   * on into a feedback cycle or the next step. A sandbox that cannot be swept is retired once
   * its steps are recorded (`retireIfUnswept`).
   */
  async sweep(): Promise<void> {
    const sandbox = this.current;
    if (!sandbox?.sweep) return;
    try {
      await bounded(() => sandbox.sweep!(), sweepMs, 'sandbox.sweep', this.trial.cancellation.abortSignal);
    } catch (error) {
      this.trial.log(
        'error',
        `ending the step's processes in sandbox ${sandbox.id} failed: ${errorMessage(error)}`,
      );
      this.unswept = true;
    }
  }

  /** Closes a sandbox that could not be swept; the next turn gets a fresh one on the last snapshot. */
  async retireIfUnswept(): Promise<void> {
    if (!this.unswept) return;
    const sandbox = this.current;
    this.unswept = false;
    this.current = undefined;
    this.carried = undefined;
    if (sandbox) await settleWithin(sandbox.close(), closeMs);
  }

  /** Puts the workspace the turn asks for in place (TurnPlan.workspace), then hides the step files. */
  async prepareTurn(turn: TurnPlan, steps: Step[]): Promise<void> {
    await guard(() => this.applyWorkspaceAction(turn), 'sandbox', this.trial.bound('the workspace reset'));
    await guard(() => this.hideStepFiles(steps), 'sandbox', this.trial.bound('hiding the step files'));
  }

  private async applyWorkspaceAction(turn: TurnPlan): Promise<void> {
    if (turn.workspace.action !== 'reset') return;
    const k = turn.workspace.afterStep;
    const { task } = this.trial;
    const dir = k < 0 ? task.seed : task.steps[k]?.solution;
    if (k >= 0 && !dir)
      throw new StepFault('error:internal', `step ${k + 1} has no reference solution to reset to`);
    await this.current!.push(dir ? await readDirectoryFiles(dir) : []);
  }

  /** Removes what the steps hide from the agent (Step.hidden), after the workspace action. */
  private async hideStepFiles(steps: Step[]): Promise<void> {
    for (const path of steps.flatMap((step) => step.hidden ?? [])) await this.current!.remove(path);
  }

  /** A snapshot of `sandbox` outside scoring, taken holding a CPU slot. */
  async snapshotOf(sandbox: Sandbox, what: string): Promise<string> {
    const release = await guard(() => this.trial.cpuSlot(), 'sandbox');
    try {
      return await guard(() => sandbox.snapshot(), 'sandbox', this.trial.bound(what));
    } finally {
      release();
    }
  }

  /** Closes the sandbox (bounded: a sandbox that does not close is left behind). */
  async close(): Promise<void> {
    if (this.current) await settleWithin(this.current.close(), closeMs);
  }
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
