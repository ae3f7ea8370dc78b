import { Container } from 'inversify';
import {
  type Environment,
  type Harness,
  type Memory,
  type ModelGateway,
  type RunEvent,
  type Scorer,
  type SnapshotStore,
  type StepStatus,
  type TrialSpec,
  tokens,
} from '../contracts/index.js';
import type { Release, Slots } from '../process/slots.js';
import type { RunStore } from '../store/run-store.js';
import { LimitExceeded } from './faults.js';
import type { TrialServices } from './services.js';
import type { NamedScorer, StepScorer } from './step-scoring.js';

/** The plugin instances one trial runs with. */
export interface TrialPlugins {
  environment: Environment;
  harness: Harness;
  memory: Memory;
  stepScorers: NamedScorer<StepScorer>[];
  trialScorers: NamedScorer<Scorer & { scope: 'trial' }>[];
}

export const isAgentOutcome = (status: StepStatus) => status === 'ok' || status === 'failed';

/** How long closing a sandbox may take before the trial goes on without it. */
export const closeMs = 15_000;

/**
 * What every part of a running trial shares: its spec, the run's services, the trial's own
 * container (its CPU slots), and the bounds on plugin calls.
 */
export class TrialContext {
  readonly store: RunStore;
  readonly container: Container;
  readonly snapshots: SnapshotStore;
  readonly gateway?: ModelGateway;
  /** This trial's view of the run's CPU budget (see Slots.forTrial). */
  readonly slots?: Slots;
  readonly abandonMs: number;

  constructor(
    readonly spec: TrialSpec,
    readonly services: TrialServices,
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

  get task() {
    return this.spec.task;
  }

  get cancellation() {
    return this.services.cancellation;
  }

  /** The bound on one plugin call outside a turn: the step's wall clock, and the run's abort. */
  bound(what: string) {
    return { ms: this.spec.limits.stepMs, what, cancel: this.cancellation.abortSignal };
  }

  emit(event: RunEvent): void {
    this.services.emit(event);
  }

  log(level: 'info' | 'warn' | 'error', message: string): void {
    this.emit({ type: 'log', level, message, trialId: this.spec.id });
  }

  /**
   * One slot of the run's CPU budget (tokens.CaseSlots), for the trial's own work on the runner:
   * snapshots and diffs then take turns with the cases of every trial instead of adding to them.
   * Rejects with LimitExceeded `cancelled` when the run is aborted while waiting.
   */
  async cpuSlot(): Promise<Release> {
    if (!this.slots) return () => undefined;
    const signal = this.cancellation.abortSignal;
    return this.slots.acquire(signal).catch((error: unknown) => {
      if (signal.aborted) throw new LimitExceeded('cancelled', 'waiting for a CPU slot was cancelled');
      throw error;
    });
  }
}
