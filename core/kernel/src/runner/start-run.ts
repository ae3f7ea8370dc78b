import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Container } from 'inversify';
import { ConfigError, type ConfigIssue } from '../config/config-error.js';
import { type LoadedExperiment, loadExperiment } from '../config/load-experiment.js';
import {
  type ConditionScore,
  type Environment,
  type Executor,
  emptyUsage,
  type FiguresFile,
  type Logger,
  type ModelGateway,
  type PluginKind,
  type PluginRef,
  type ReportContext,
  type Reporter,
  type RunEvent,
  type RunInfo,
  type Scorer,
  type Script,
  type StampedRunEvent,
  type StoredFigure,
  type Task,
  type TrialRecord,
  type TrialSpec,
  tokens,
} from '../contracts/index.js';
import { caseSlots } from '../process/slots.js';
import { writeJsonAtomic } from '../store/atomic.js';
import { type LockFile, taskLock } from '../store/lock.js';
import { runIdOf } from '../store/run-id.js';
import { RunStore, readJsonFile } from '../store/run-store.js';
import { acquireWriterLock, type WriterLock } from '../store/run-writer.js';
import { fsReason } from '../text/fs-reason.js';
import { finishAttemptMoves } from './attempts.js';
import { RunCancellation } from './cancellation.js';
import { LocalExecutor } from './executor.js';
import type { RunnableExperiment } from './experiment.js';
import { errorMessage } from './faults.js';
import { LockWriter } from './lock-writer.js';
import { planProblems } from './plan.js';
import { createRunDir, notARun, runDirState } from './run-dir.js';
import { runTrial } from './run-trial.js';

export interface RunOptions {
  /** Write the run exactly into this directory (default: `<cwd>/runs/<name>-<yyyymmdd-hhmmss>`). */
  runDir?: string;
  cwd?: string;
  /** Trials at once; overrides the experiment's `concurrency`. */
  concurrency?: number;
  onEvent?(event: StampedRunEvent): void;
  /** Where reporters print (the terminal); nothing is printed without it. */
  print?(text: string): void;
  /** The width of the terminal reporters print to (none for a pipe), for tables that must fit. */
  width?: number;
  gateway?: ModelGateway;
  /**
   * Opens the run's model gateway when the experiment has `models:` (and no `gateway` is given).
   * Called once the run directory is known and before it is made, so a bad configuration leaves
   * nothing behind; the gateway is closed when the run ends.
   */
  openGateway?(context: {
    run: RunInfo;
    models: unknown;
    prices?: unknown;
    file: string;
    log: Logger;
  }): Promise<ClosableGateway>;
  /** Stop/abort hooks (the CLI wires them to SIGINT). */
  cancellation?: RunCancellation;
  /** How long a harness gets to end its turn after an abort before it is abandoned. */
  abandonMs?: number;
  executor?: Executor;
  /**
   * Take the run over from a writer on another host, or from an unreadable writer.lock (resume and
   * retry refuse a run another process is writing; a dead writer on this host is taken over).
   */
  force?: boolean;
}

export type ClosableGateway = ModelGateway & { close(): Promise<void> };

export interface RunResult {
  runId: string;
  runDir: string;
  /** `cancelled` when the user stopped the run; `error` when a reporter or experiment scorer failed. */
  status: 'ok' | 'cancelled' | 'error';
  resumed: boolean;
  trials: { spec: TrialSpec; record: TrialRecord }[];
  experimentScores: (ConditionScore & { scorer: string })[];
  errors: string[];
}

const finalStatuses = (status: TrialRecord['status']) =>
  status !== 'running' && status !== 'pending' && status !== 'cancelled';

/** A trial is complete when its trial.json holds a final status; resume leaves it alone. */
export function isTrialComplete(record: TrialRecord | undefined): boolean {
  return record !== undefined && record.endedAt !== undefined && finalStatuses(record.status);
}

/**
 * Runs an experiment into a new run directory. Everything is validated (plugins instantiate,
 * scripts plan every task) before the directory is made, so bad input leaves nothing behind.
 * With `runDir` naming a directory that already holds this very experiment, the run resumes.
 */
export async function startRun(experiment: RunnableExperiment, options: RunOptions = {}): Promise<RunResult> {
  const runDir = options.runDir
    ? resolve(options.cwd ?? process.cwd(), options.runDir)
    : await freshRunDir(experiment.name, options.cwd ?? process.cwd());
  const found = await runDirState(runDir);
  if (found.state === 'occupied') {
    const saved = await readFile(join(runDir, 'experiment.yaml'), 'utf8').catch(() => undefined);
    if (saved !== experiment.resolved) {
      throw new ConfigError([
        {
          file: runDir,
          message:
            saved === undefined
              ? 'the run directory is not empty and holds no run; choose an empty or new directory'
              : 'the run directory holds a run of a different experiment; choose another directory, or `longhaul resume` it',
        },
      ]);
    }
    const writer = await acquireWriterLock(runDir, { force: options.force, command: 'longhaul run' });
    return resumeExperiment(experiment, runDir, options, writer);
  }
  const run = new Run(experiment, new RunStore(runDir), false, options);
  await run.validate();
  try {
    await createRunDir(run.store, found, {
      experiment: experiment.resolved,
      writeLock: () => run.lockWriter.write(),
    });
    run.writer = await acquireWriterLock(runDir, { force: options.force, command: 'longhaul run' });
  } catch (error) {
    await run.discard();
    throw error;
  }
  return run.execute();
}

/**
 * Continues a run in `runDir` with the experiment loaded from its experiment.yaml: complete
 * trials are kept, interrupted ones go on from their last complete step. The run's writer.lock
 * is taken first (`writer`, when the caller took it already): a run another live process writes
 * is refused.
 */
export async function resumeExperiment(
  experiment: RunnableExperiment,
  runDir: string,
  options: RunOptions = {},
  writer?: WriterLock,
): Promise<RunResult> {
  const dir = resolve(runDir);
  const lock = writer ?? (await acquireWriterLock(dir, { force: options.force, command: 'longhaul resume' }));
  const run = new Run(experiment, new RunStore(dir), true, options);
  run.writer = lock;
  try {
    await run.validate();
  } catch (error) {
    await lock.release();
    throw error;
  }
  return run.execute();
}

/**
 * Resumes the run in `runDir`: reloads its experiment.yaml (plugins are discovered from `cwd`,
 * relative paths resolve against the original experiment's directory) and continues it.
 */
export async function resumeRun(runDir: string, options: RunOptions = {}): Promise<RunResult> {
  const { dir, experiment, writer } = await openRun(runDir, options, 'longhaul resume');
  return resumeExperiment(experiment, dir, options, writer);
}

/**
 * The run in `runDir` and its experiment, as resume and retry continue it, taken for this process
 * (its writer.lock; release `writer` unless the run goes on); a move of a trial to its attempts
 * that a crash cut short is completed first. Nothing is changed in a run another process writes.
 */
export async function openRun(
  runDir: string,
  options: Pick<RunOptions, 'cwd' | 'force'> = {},
  command = 'longhaul resume',
): Promise<{ dir: string; store: RunStore; experiment: LoadedExperiment; writer: WriterLock }> {
  const dir = resolve(options.cwd ?? process.cwd(), runDir);
  const store = new RunStore(dir);
  const found = await runDirState(dir);
  const saved =
    found.state === 'occupied'
      ? await readFile(store.experimentFile, 'utf8').catch(() => undefined)
      : undefined;
  if (saved === undefined) throw new ConfigError([{ file: dir, message: notARun(found) }]);
  const writer = await acquireWriterLock(dir, { force: options.force, command });
  try {
    const experiment = await loadExperiment(store.experimentFile, { cwd: options.cwd });
    await finishAttemptMoves(store);
    return { dir, store, experiment, writer };
  } catch (error) {
    await writer.release();
    throw error;
  }
}

/**
 * Everything `run` checks before it makes the run directory (plugins start, scripts plan every
 * task, environments can open sandboxes for their tasks), without running or writing anything.
 * Throws a ConfigError with every problem. The gateway is not opened: `loadExperiment`'s
 * `checkModels` covers `models:` and `prices:`.
 */
export async function checkExperiment(
  experiment: RunnableExperiment,
  options: RunOptions = {},
): Promise<void> {
  const dir = join(experiment.baseDir, 'runs', `${experiment.name}-validate`);
  const run = new Run(experiment, new RunStore(dir), false, { ...options, openGateway: undefined });
  await run.validate();
  await run.discard();
}

class Run {
  readonly container = new Container();
  readonly runId: string;
  private readonly cancellation: RunCancellation;
  private readonly reporters: { label: string; reporter: Reporter }[] = [];
  private lock!: LockWriter;
  private readonly errors: string[] = [];
  private gateway?: ClosableGateway;
  private readonly info: RunInfo;
  /** One instance per environment label the experiment uses. */
  private readonly environments = new Map<string, Environment>();
  private executor?: Executor;
  /** This process's hold on the run directory, released when the run ends. */
  writer?: WriterLock;

  constructor(
    readonly experiment: RunnableExperiment,
    readonly store: RunStore,
    readonly resumed: boolean,
    readonly options: RunOptions,
  ) {
    this.runId = runIdOf(store.dir);
    this.cancellation = options.cancellation ?? new RunCancellation();
    this.info = { runId: this.runId, runDir: store.dir, baseDir: experiment.baseDir };
    this.container.bind(tokens.Run).toConstantValue(this.info);
    this.container.bind(tokens.SnapshotStore).toConstantValue(store.snapshots);
    this.container.bind(tokens.CaseSlots).toConstantValue(caseSlots(experiment.config.caseWorkers));
    const logger: Logger = {
      info: (message) => this.emit({ type: 'log', level: 'info', message }),
      warn: (message) => this.emit({ type: 'log', level: 'warn', message }),
      error: (message) => this.emit({ type: 'log', level: 'error', message }),
    };
    this.container.bind(tokens.Logger).toConstantValue(logger);
    if (options.gateway) this.container.bind(tokens.Gateway).toConstantValue(options.gateway);
  }

  get specs(): TrialSpec[] {
    return this.experiment.trials.map((spec) => ({ ...spec, runId: this.runId, runDir: this.store.dir }));
  }

  private instantiate<T>(parent: Container, kind: PluginKind, ref: PluginRef): T {
    return this.experiment.registry.instantiate<T>(parent, kind, ref);
  }

  /**
   * Opens the gateway, instantiates every plugin once per use and plans every task; throws a
   * ConfigError with all problems (after closing the gateway).
   */
  async validate(): Promise<void> {
    this.executor = this.options.executor ?? this.chosenExecutor();
    const { models, prices } = this.experiment.config;
    // A remote executor's workers open their own gateways, with their own keys.
    if (!this.executor?.remote && !this.options.gateway && this.options.openGateway && models !== undefined) {
      this.gateway = await this.options.openGateway({
        run: this.info,
        models,
        prices,
        file: this.experiment.file,
        log: this.container.get(tokens.Logger),
      });
      this.container.bind(tokens.Gateway).toConstantValue(this.gateway);
    }
    try {
      await this.checkPlugins();
    } catch (error) {
      await this.closeGateway();
      throw error;
    }
  }

  /** The experiment's `executor` plugin, if it names one. */
  private chosenExecutor(): Executor | undefined {
    const ref = this.experiment.config.executor?.[0];
    if (!ref) return undefined;
    try {
      return this.instantiate<Executor>(this.container, 'executor', ref);
    } catch (error) {
      throw new ConfigError([
        {
          file: this.experiment.file,
          key: 'executor',
          message: `plugin executor '${ref.id}' failed to start: ${errorMessage(error)}`,
        },
      ]);
    }
  }

  /** Gives up a validated run that will not execute (its directory could not be made). */
  async discard(): Promise<void> {
    await this.closeGateway();
  }

  /** The lock file as built by `validate` (written again when the run executes). */
  get lockWriter(): LockWriter {
    return this.lock;
  }

  private async closeGateway(): Promise<void> {
    const gateway = this.gateway;
    this.gateway = undefined;
    if (gateway) await gateway.close().catch((error) => this.errors.push(`gateway: ${errorMessage(error)}`));
  }

  private async checkPlugins(): Promise<void> {
    const issues: ConfigIssue[] = [];
    const file = this.experiment.file;
    const fail = (key: string, message: string) =>
      issues.push({ file, ...this.experiment.locate?.(key), key, message });
    const environments = this.environments;
    const planned = new Set<string>();
    const checked = new Set<string>();
    for (const spec of this.specs) {
      const child = new Container({ parent: this.container });
      child.bind(tokens.Trial).toConstantValue(spec);
      const use = <T>(kind: PluginKind, ref: PluginRef, key: string): T | undefined => {
        try {
          return this.instantiate<T>(child, kind, ref);
        } catch (error) {
          fail(key, `plugin ${kind} '${ref.id}' failed to start: ${errorMessage(error)}`);
          return undefined;
        }
      };
      const { condition } = spec;
      if (!checked.has(condition.key)) {
        checked.add(condition.key);
        const environment = use<Environment>('environment', condition.environment, 'environment');
        if (environment) environments.set(condition.environment.label, environment);
        use('harness', condition.harness, 'harness');
        use('memory', condition.memory, 'memory');
        for (const [i, ref] of spec.scorers.entries()) use<Scorer>('scorer', ref, `scorers[${i}]`);
      }
      const planKey = `${condition.script.label}\u0000${spec.task.id}`;
      if (planned.has(planKey)) continue;
      planned.add(planKey);
      const script = use<Script>('script', condition.script, 'script');
      if (!script) continue;
      try {
        for (const problem of planProblems(spec.task, script.plan(spec.task))) {
          fail('script', `script '${condition.script.label}' on task '${spec.task.id}': ${problem}`);
        }
      } catch (error) {
        fail(
          'script',
          `script '${condition.script.label}' cannot plan task '${spec.task.id}': ${errorMessage(error)}`,
        );
      }
    }
    (this.experiment.config.reporters ?? []).forEach((ref, i) => {
      try {
        this.reporters.push({
          label: ref.label,
          reporter: this.instantiate<Reporter>(this.container, 'reporter', ref),
        });
      } catch (error) {
        fail(`reporters[${i}]`, `plugin reporter '${ref.id}' failed to start: ${errorMessage(error)}`);
      }
    });
    await this.checkEnvironments(fail);
    if (issues.length > 0) throw new ConfigError(issues);
    this.lock = new LockWriter(this.store.lockFile, await this.buildLock(environments));
  }

  /** Asks each environment whether it can open a sandbox for its tasks (images present or buildable). */
  private async checkEnvironments(fail: (key: string, message: string) => void): Promise<void> {
    const tasks = new Map<string, Map<string, Task>>();
    for (const spec of this.specs) {
      const label = spec.condition.environment.label;
      if (!tasks.has(label)) tasks.set(label, new Map());
      tasks.get(label)!.set(spec.task.id, spec.task);
    }
    for (const [label, environment] of this.environments) {
      let problems: string[];
      try {
        problems = (await environment.check?.([...(tasks.get(label)?.values() ?? [])])) ?? [];
      } catch (error) {
        problems = [`cannot check its sandboxes: ${errorMessage(error)}`];
      }
      for (const problem of problems) fail('environment', `environment '${label}': ${problem}`);
    }
  }

  private async buildLock(environments: Map<string, Environment>): Promise<LockFile> {
    const previous = this.resumed ? await readJsonFile<LockFile>(this.store.lockFile) : undefined;
    const tasks: LockFile['tasks'] = {};
    for (const spec of this.specs) tasks[spec.task.id] ??= taskLock(spec.task);
    if (previous) {
      const changed = Object.entries(tasks)
        .filter(([id, lock]) => previous.tasks[id] && previous.tasks[id].hash !== lock.hash)
        .map(([id]) => id);
      if (changed.length > 0) {
        throw new ConfigError([
          {
            file: this.store.lockFile,
            message: `task ${changed.join(', ')} changed since the run started; resuming would mix two versions (start a new run instead)`,
          },
        ]);
      }
      this.checkModelInputs(previous);
      return { ...previous, tasks: { ...previous.tasks, ...tasks } };
    }
    const plugins: LockFile['plugins'] = {};
    const note = (kind: PluginKind, id: string) => {
      const loaded = this.experiment.registry.get(kind, id);
      if (loaded)
        plugins[`${kind}:${id}`] = { kind, id, package: loaded.packageName, version: loaded.version };
    };
    for (const spec of this.specs) {
      const { condition } = spec;
      note('source', spec.task.source);
      note('harness', condition.harness.id);
      note('environment', condition.environment.id);
      note('script', condition.script.id);
      note('memory', condition.memory.id);
      for (const ref of spec.scorers) note('scorer', ref.id);
    }
    for (const ref of this.experiment.config.reporters ?? []) note('reporter', ref.id);
    for (const ref of this.experiment.config.executor ?? []) note('executor', ref.id);
    const described: LockFile['environments'] = {};
    for (const [label, environment] of environments) {
      try {
        described[label] = (await environment.describe?.()) ?? {};
      } catch (error) {
        throw new ConfigError([
          {
            file: this.experiment.file,
            key: 'environment',
            message: `environment '${label}' cannot describe itself: ${errorMessage(error)}`,
          },
        ]);
      }
    }
    const models = this.gateway?.inputs;
    return {
      experiment: { name: this.experiment.name, file: this.experiment.file },
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      createdAt: new Date().toISOString(),
      plugins,
      environments: described,
      harnesses: {},
      tasks,
      ...(models && Object.keys(models).length > 0 ? { models } : {}),
    };
  }

  /** A model whose replies file changed since the run started would answer two ways in one condition. */
  private checkModelInputs(previous: LockFile): void {
    const now = this.gateway?.inputs ?? {};
    const changed = Object.entries(previous.models ?? {}).filter(
      ([name, was]) => now[name] !== undefined && now[name].sha256 !== was.sha256,
    );
    if (changed.length === 0) return;
    throw new ConfigError(
      changed.map(([name, was]) => ({
        file: was.file,
        key: `models.${name}`,
        message: `model '${name}' answers from this file, which changed since the run started; resuming would mix two models in one condition (restore the file, or start a new run)`,
      })),
    );
  }

  emit(event: RunEvent): void {
    let stamped: StampedRunEvent;
    try {
      stamped = this.store.appendEvent(event);
    } catch {
      stamped = { ts: new Date().toISOString(), ...event } as StampedRunEvent;
    }
    this.options.onEvent?.(stamped);
    for (const { label, reporter } of this.reporters) {
      try {
        reporter.onEvent?.(stamped);
      } catch (error) {
        this.errors.push(`reporter ${label}: ${errorMessage(error)}`);
      }
    }
  }

  async execute(): Promise<RunResult> {
    try {
      return await this.executeHeld();
    } finally {
      await this.writer?.release();
    }
  }

  private async executeHeld(): Promise<RunResult> {
    try {
      await this.lock.write();
    } catch (error) {
      await this.closeGateway();
      throw new ConfigError([
        {
          file: this.store.lockFile,
          message: `cannot write: ${fsReason(error)}; free some space or fix the run directory, then resume`,
        },
      ]);
    }
    const specs = this.specs;
    const records = new Map<string, TrialRecord>();
    for (const spec of specs) {
      const record = await this.store.readTrial(spec.id);
      if (record) records.set(spec.id, record);
    }
    const pending = specs.filter((spec) => !isTrialComplete(records.get(spec.id)));
    this.emit({
      type: 'run.start',
      runId: this.runId,
      runDir: this.store.dir,
      trials: specs.length,
      resumed: this.resumed,
      complete: specs.length - pending.length,
    });
    if (this.resumed && !this.executor?.remote) await this.reclaim();
    const executor =
      this.executor ?? new LocalExecutor(this.options.concurrency ?? this.experiment.config.concurrency ?? 1);
    const services = {
      container: this.container,
      plugins: this.experiment.registry,
      store: this.store,
      emit: (event: RunEvent) => this.emit(event),
      cancellation: this.cancellation,
      abandonMs: this.options.abandonMs,
      onPrepared: (label: string, info: Record<string, unknown>) => this.lock.harnessPrepared(label, info),
    };
    try {
      const results = await executor.execute(
        pending,
        (spec) => runTrial(spec, services).catch((error) => this.crashedTrial(spec, error)),
        this.cancellation.stopSignal,
        {
          emit: (event) => this.emit(event),
          readTrial: (id) => this.store.readTrial(id),
          writeTrial: (record) => this.store.writeTrial(record),
        },
      );
      for (const [id, record] of results) records.set(id, record);
    } finally {
      this.cancellation.dispose();
      await this.closeGateway();
    }
    await this.lock.settled();
    const trials = specs.map((spec) => ({ spec, record: records.get(spec.id) ?? pendingRecord(spec) }));
    const cancelled = this.cancellation.stopRequested || trials.some((t) => t.record.status === 'cancelled');
    const experimentScores = cancelled ? [] : await this.scoreExperiment(trials);
    await this.report(trials, experimentScores);
    const status = cancelled ? 'cancelled' : this.errors.length > 0 ? 'error' : 'ok';
    this.emit({ type: 'run.end', runId: this.runId, status });
    return {
      runId: this.runId,
      runDir: this.store.dir,
      status,
      resumed: this.resumed,
      trials,
      experimentScores,
      errors: this.errors,
    };
  }

  /**
   * Removes what an interrupted attempt of this run left behind (its containers, networks,
   * sandbox folders) before the run goes on. A failure is logged, never fatal: the leftovers only
   * cost resources, and `longhaul prune` can remove them later.
   */
  private async reclaim(): Promise<void> {
    for (const [label, environment] of this.environments) {
      if (!environment.reclaim) continue;
      try {
        const { removed } = await environment.reclaim({ runId: this.runId });
        if (removed.length > 0) {
          this.emit({
            type: 'log',
            level: 'info',
            message: `environment '${label}': removed what the interrupted attempt left: ${removed.join(', ')}`,
          });
        }
      } catch (error) {
        this.emit({
          type: 'log',
          level: 'warn',
          message: `environment '${label}' could not remove what the interrupted attempt left (\`longhaul prune\` can): ${errorMessage(error)}`,
        });
      }
    }
  }

  /** A trial whose runner itself failed (a kernel bug): recorded, never fatal to the run. */
  private async crashedTrial(spec: TrialSpec, error: unknown): Promise<TrialRecord> {
    const record: TrialRecord = {
      ...pendingRecord(spec),
      status: 'error:internal',
      error: errorMessage(error),
      endedAt: new Date().toISOString(),
    };
    this.emit({
      type: 'log',
      level: 'error',
      message: `trial ${spec.id}: ${errorMessage(error)}`,
      trialId: spec.id,
    });
    await this.store.writeTrial(record).catch(() => {});
    return record;
  }

  private async scoreExperiment(trials: { spec: TrialSpec; record: TrialRecord }[]) {
    const scores: (ConditionScore & { scorer: string })[] = [];
    for (const ref of trials[0]?.spec.scorers ?? []) {
      try {
        const scorer = this.instantiate<Scorer>(this.container, 'scorer', ref);
        if (scorer.scope !== 'experiment') continue;
        for (const score of await scorer.score({ trials })) scores.push({ ...score, scorer: ref.label });
      } catch (error) {
        this.errors.push(`experiment scorer ${ref.label}: ${errorMessage(error)}`);
      }
    }
    return scores;
  }

  private async report(
    trials: { spec: TrialSpec; record: TrialRecord }[],
    experimentScores: (ConditionScore & { scorer: string })[],
  ): Promise<void> {
    const context: ReportContext = {
      runDir: this.store.dir,
      // A resumed run reports the file the run was started from, not its saved copy.
      experiment: this.lock.lock.experiment ?? { name: this.experiment.name, file: this.experiment.file },
      trials,
      experimentScores,
      print: this.options.print ?? (() => {}),
      width: this.options.width,
    };
    const figures: StoredFigure[] = [];
    for (const { label, reporter } of this.reporters) {
      try {
        await reporter.finish(context);
        for (const figure of (await reporter.figures?.(context)) ?? [])
          figures.push({ ...figure, reporter: label });
      } catch (error) {
        this.errors.push(`reporter ${label}: ${errorMessage(error)}`);
      }
    }
    // Scorers' figures: a benchmark's headline comes with its scorers, not only with a reporter.
    for (const ref of trials[0]?.spec.scorers ?? []) {
      try {
        const scorer = this.instantiate<Scorer>(this.container, 'scorer', ref);
        for (const figure of (await scorer.figures?.({ ...context, label: ref.label })) ?? [])
          figures.push({ ...figure, reporter: ref.label });
      } catch (error) {
        this.errors.push(`scorer ${ref.label} (figures): ${errorMessage(error)}`);
      }
    }
    try {
      await writeJsonAtomic(join(this.store.dir, 'figures.json'), { figures } satisfies FiguresFile);
    } catch (error) {
      this.errors.push(`figures.json: ${errorMessage(error)}`);
    }
    for (const error of this.errors) this.emit({ type: 'log', level: 'error', message: error });
  }
}

function pendingRecord(spec: TrialSpec): TrialRecord {
  return {
    id: spec.id,
    task: spec.task.id,
    condition: spec.condition.key,
    repeat: spec.repeat,
    status: 'pending',
    durationMs: 0,
    usage: emptyUsage(),
    steps: [],
    scores: {},
  };
}

/** `<cwd>/runs/<name>-<yyyymmdd-hhmmss>` (UTC), with `-2`, `-3`… when that exists already. */
async function freshRunDir(name: string, cwd: string): Promise<string> {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const base = join(resolve(cwd), 'runs', `${name.replace(/[^A-Za-z0-9._-]/g, '-')}-${stamp}`);
  for (let n = 1; ; n++) {
    const dir = n === 1 ? base : `${base}-${n}`;
    if ((await runDirState(dir)).state !== 'occupied') return dir;
  }
}
