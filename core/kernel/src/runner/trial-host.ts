import { Container } from 'inversify';
import { loadExperiment } from '../config/load-experiment.js';
import {
  type Logger,
  type RunEvent,
  type RunInfo,
  type TrialRecord,
  type TrialSpec,
  tokens,
  type WorkerHost,
} from '../contracts/index.js';
import type { PluginRegistry } from '../plugins/registry.js';
import { caseSlots } from '../process/slots.js';
import { RunStore } from '../store/run-store.js';
import type { RunnerRegistry } from './experiment.js';
import { errorMessage } from './faults.js';
import { runTrial } from './run-trial.js';
import { type ClosableGateway, isTrialComplete, type RunOptions } from './start-run.js';

export interface TrialHostOptions {
  /** Where plugins are discovered (this machine's installation). Default: the process's cwd. */
  cwd?: string;
  /** The plugins to use instead of discovering them (a worker in a test process). */
  registry?: PluginRegistry;
  /** Opens this machine's gateway for a run whose experiment has `models:` (keys stay here). */
  openGateway?: RunOptions['openGateway'];
  /** How long a harness gets to end its turn after an abort before it is abandoned. */
  abandonMs?: number;
  log?(message: string): void;
}

/** What a host keeps of one run: its experiment's plugins, its store and its gateway. */
interface HostedRun {
  container: Container;
  registry: RunnerRegistry;
  store: RunStore;
  gateway?: ClosableGateway;
}

/**
 * Runs trial specs that were shipped from a coordinator (the worker side of an executor). Each
 * run is loaded once from its experiment.yaml in the run store, with plugins discovered on this
 * machine and a gateway of its own; the trial directory is written into that store as a local
 * run writes it, so a trial interrupted here continues elsewhere from its last complete step.
 */
export class TrialHost implements WorkerHost {
  readonly #runs = new Map<string, Promise<HostedRun>>();

  constructor(private readonly options: TrialHostOptions = {}) {}

  log(message: string): void {
    this.options.log?.(message);
  }

  async runTrial(
    spec: TrialSpec,
    hooks: { emit(event: RunEvent): void; stop: AbortSignal; abort: AbortSignal },
  ): Promise<TrialRecord> {
    const run = await this.hosted(spec.runDir, spec.runId);
    const done = await run.store.readTrial(spec.id);
    if (done && isTrialComplete(done)) return done;
    const container = new Container({ parent: run.container });
    const logger: Logger = {
      info: (message) => hooks.emit({ type: 'log', level: 'info', message, trialId: spec.id }),
      warn: (message) => hooks.emit({ type: 'log', level: 'warn', message, trialId: spec.id }),
      error: (message) => hooks.emit({ type: 'log', level: 'error', message, trialId: spec.id }),
    };
    container.bind(tokens.Logger).toConstantValue(logger);
    return runTrial(spec, {
      container,
      plugins: run.registry,
      store: run.store,
      emit: hooks.emit,
      cancellation: { stopSignal: hooks.stop, abortSignal: hooks.abort },
      abandonMs: this.options.abandonMs,
    });
  }

  /** Closes the gateways this host opened. */
  async close(): Promise<void> {
    const runs = [...this.#runs.values()];
    this.#runs.clear();
    for (const pending of runs) {
      const run = await pending.catch(() => undefined);
      await run?.gateway?.close().catch((error) => this.log(`gateway: ${errorMessage(error)}`));
    }
  }

  private hosted(runDir: string, runId: string): Promise<HostedRun> {
    let run = this.#runs.get(runDir);
    if (!run) {
      run = this.load(runDir, runId);
      // A run that failed to load (its store not mounted yet, a plugin missing) is tried again next time.
      run.catch(() => this.#runs.delete(runDir));
      this.#runs.set(runDir, run);
    }
    return run;
  }

  private async load(runDir: string, runId: string): Promise<HostedRun> {
    const store = new RunStore(runDir);
    const experiment = await loadExperiment(store.experimentFile, {
      cwd: this.options.cwd ?? process.cwd(),
      registry: this.options.registry,
    });
    const info: RunInfo = { runId, runDir: store.dir, baseDir: experiment.baseDir };
    const container = new Container();
    container.bind(tokens.Run).toConstantValue(info);
    container.bind(tokens.SnapshotStore).toConstantValue(store.snapshots);
    container.bind(tokens.CaseSlots).toConstantValue(caseSlots(experiment.config.caseWorkers));
    const log: Logger = {
      info: (message) => this.log(message),
      warn: (message) => this.log(`warning: ${message}`),
      error: (message) => this.log(`error: ${message}`),
    };
    const { models, prices } = experiment.config;
    let gateway: ClosableGateway | undefined;
    if (models !== undefined && this.options.openGateway) {
      gateway = await this.options.openGateway({ run: info, models, prices, file: experiment.file, log });
      container.bind(tokens.Gateway).toConstantValue(gateway);
    }
    return { container, registry: experiment.registry, store, gateway };
  }
}
