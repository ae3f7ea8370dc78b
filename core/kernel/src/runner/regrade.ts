import { createHash } from 'node:crypto';
import { mkdir, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Container } from 'inversify';
import { ConfigError } from '../config/config-error.js';
import type { Environment, Logger, ModelGateway, RunInfo, Scorer, TrialSpec } from '../contracts/index.js';
import { tokens } from '../contracts/index.js';
import { caseSlots } from '../process/slots.js';
import { writeJsonAtomic } from '../store/atomic.js';
import { runIdOf } from '../store/run-id.js';
import { RunStore, readJsonFile, type StepScoresFile } from '../store/run-store.js';
import { acquireWriterLock } from '../store/run-writer.js';
import type { RunnableExperiment } from './experiment.js';
import { errorMessage } from './faults.js';
import { type NamedScorer, type StepScorer, scoreStep } from './step-scoring.js';

/**
 * A regrade scores a finished run's complete steps again, from their snapshots, with the step
 * scorers as the experiment now configures them; no agent runs. The earlier scores stay as they
 * are: a regrade's scores go beside them, under the regrade's id:
 *
 *   regrades/<id>/regrade.json                      what was regraded, with which scorers; endedAt when done
 *   regrades/<id>/scores.json                       every regraded step's scores (written at the end)
 *   trials/<t>/steps/<nn>-<step>/regrades/<id>/scores.json   one step's scores (its presence: done)
 *   trials/<t>/steps/<nn>-<step>/regrades/<id>/tests/        the scorers' raw outputs
 *
 * Like a run, a regrade is resumable: one killed midway is continued by the next regrade with the
 * same scorers, which skips the steps it already scored.
 */
export interface RegradeFile {
  id: string;
  /** The scorers as configured for the regrade (ids, labels, options), per condition. */
  scorers: TrialSpec['scorers'];
  /** A hash of `scorers`: a later regrade with the same one continues this one. */
  config: string;
  startedAt: string;
  endedAt?: string;
}

export interface RegradedStep {
  trialId: string;
  condition: string;
  index: number;
  step: string;
  status: StepScoresFile['status'];
  scores: StepScoresFile['scores'];
  /** The step's status and scores as the run scored it, to compare with. */
  before: Pick<StepScoresFile, 'status' | 'scores'>;
}

export interface RegradeOptions {
  /** A name for the regrade (default: an unfinished regrade with the same scorers, or a new id). */
  id?: string;
  /** Model access for scorers that call models (judges); no agent runs. */
  gateway?: ModelGateway;
  onLog?(level: 'info' | 'warn' | 'error', message: string): void;
  /** Called after each step is regraded. */
  onStep?(step: RegradedStep, resumed: boolean): void;
  signal?: AbortSignal;
}

export interface RegradeResult {
  id: string;
  runDir: string;
  steps: RegradedStep[];
  /** Steps a previous, interrupted regrade of the same id had scored already. */
  resumed: number;
}

const regradeId = (date: Date) =>
  `regrade-${date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace('T', '-')
    .replace(/\.\d+Z$/, '')}`;

const configHash = (scorers: unknown) => createHash('sha256').update(JSON.stringify(scorers)).digest('hex');

async function chooseRegrade(
  store: RunStore,
  scorers: TrialSpec['scorers'],
  id?: string,
): Promise<RegradeFile> {
  const config = configHash(scorers);
  const dir = join(store.dir, 'regrades');
  if (id !== undefined) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id)) {
      throw new ConfigError([
        { file: '--id', message: `'${id}' is not a regrade id (letters, digits, . _ -)` },
      ]);
    }
    const found = await readJsonFile<RegradeFile>(join(dir, id, 'regrade.json'));
    if (found && found.config !== config) {
      throw new ConfigError([
        {
          file: join(dir, id, 'regrade.json'),
          message: `regrade '${id}' was made with other scorers; choose another id`,
        },
      ]);
    }
    return found ?? { id, scorers, config, startedAt: new Date().toISOString() };
  }
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names.sort().reverse()) {
    const found = await readJsonFile<RegradeFile>(join(dir, name, 'regrade.json'));
    if (found && found.config === config && found.endedAt === undefined) return found;
  }
  const now = new Date();
  let fresh = regradeId(now);
  for (let n = 2; names.includes(fresh); n++) fresh = `${regradeId(now)}-${n}`;
  return { id: fresh, scorers, config, startedAt: now.toISOString() };
}

/**
 * Regrades the run in `runDir` with `experiment` (its experiment.yaml as reloaded, with any
 * overrides): every complete step of every trial the run holds, step scorers only.
 */
export async function regradeRun(
  experiment: RunnableExperiment,
  runDir: string,
  options: RegradeOptions = {},
): Promise<RegradeResult> {
  const store = new RunStore(resolve(runDir));
  const runId = runIdOf(store.dir);
  const present = new Set(await store.trialIds());
  const specs = experiment.trials
    .filter((spec) => present.has(spec.id))
    .map((spec) => ({ ...spec, runId, runDir: store.dir }));
  if (specs.length === 0) {
    throw new ConfigError([
      {
        file: store.dir,
        message: 'no trial of the experiment is in this run directory (was --set changing conditions?)',
      },
    ]);
  }
  // A run another process is writing has steps still changing under the regrade: refused.
  const writer = await acquireWriterLock(store.dir, { command: 'longhaul regrade' });
  try {
    return await regradeSteps(store, specs, experiment, options);
  } finally {
    await writer.release();
  }
}

async function regradeSteps(
  store: RunStore,
  specs: TrialSpec[],
  experiment: RunnableExperiment,
  options: RegradeOptions,
): Promise<RegradeResult> {
  const runId = runIdOf(store.dir);
  const regrade = await chooseRegrade(store, specs[0]!.scorers, options.id);
  const regradeDir = join(store.dir, 'regrades', regrade.id);
  await mkdir(regradeDir, { recursive: true });
  await writeJsonAtomic(join(regradeDir, 'regrade.json'), { ...regrade, endedAt: undefined });

  const log = (level: 'info' | 'warn' | 'error', message: string) => options.onLog?.(level, message);
  const container = new Container();
  const info: RunInfo = { runId, runDir: store.dir, baseDir: experiment.baseDir };
  container.bind(tokens.Run).toConstantValue(info);
  container.bind(tokens.SnapshotStore).toConstantValue(store.snapshots);
  container.bind(tokens.CaseSlots).toConstantValue(caseSlots(experiment.config.caseWorkers));
  const logger: Logger = {
    info: (message) => log('info', message),
    warn: (message) => log('warn', message),
    error: (message) => log('error', message),
  };
  container.bind(tokens.Logger).toConstantValue(logger);
  if (options.gateway) container.bind(tokens.Gateway).toConstantValue(options.gateway);
  const signal = options.signal ?? new AbortController().signal;

  const steps: RegradedStep[] = [];
  let resumed = 0;
  for (const spec of specs) {
    if (signal.aborted) break;
    const child = new Container({ parent: container });
    child.bind(tokens.Trial).toConstantValue(spec);
    const instantiate = <T>(kind: 'environment' | 'scorer', ref: TrialSpec['scorers'][number]): T => {
      try {
        return experiment.registry.instantiate<T>(child, kind, ref);
      } catch (error) {
        throw new ConfigError([
          {
            file: experiment.file,
            message: `plugin ${kind} '${ref.id}' failed to start: ${errorMessage(error)}`,
          },
        ]);
      }
    };
    const environment = instantiate<Environment>('environment', spec.condition.environment);
    const scorers: NamedScorer<StepScorer>[] = [];
    for (const ref of spec.scorers) {
      const scorer = instantiate<Scorer>('scorer', ref);
      if (scorer.scope === 'step') scorers.push({ label: ref.label, scorer });
    }
    let previous: string | undefined;
    for (const step of spec.task.steps) {
      const original = await store.readStepScores(spec.id, step);
      if (!original?.snapshot) continue;
      const dir = join(store.stepDir(spec.id, step), 'regrades', regrade.id);
      const done = await readJsonFile<StepScoresFile>(join(dir, 'scores.json'));
      const record = (file: StepScoresFile, again: boolean) => {
        const regraded: RegradedStep = {
          trialId: spec.id,
          condition: spec.condition.key,
          index: step.index,
          step: step.id,
          status: file.status,
          scores: file.scores,
          before: { status: original.status, scores: original.scores },
        };
        steps.push(regraded);
        options.onStep?.(regraded, again);
      };
      if (done) {
        resumed += 1;
        record(done, true);
        previous = original.snapshot;
        continue;
      }
      if (signal.aborted) break;
      const outDir = join(dir, 'tests');
      await mkdir(outDir, { recursive: true });
      const outcome = await scoreStep(scorers, {
        task: spec.task,
        step,
        trial: spec,
        snapshot: original.snapshot,
        previous,
        ...((original.start ?? previous) ? { start: original.start ?? previous } : {}),
        snapshots: store.snapshots,
        environment,
        outDir,
        // The agent's outcome of the step is what it was; a scorer that fails marks the regrade.
        status: original.status,
        signal,
        timeoutMs: spec.limits.stepMs,
      });
      const file: StepScoresFile = {
        ...original,
        status: outcome.status,
        scores: outcome.scores,
        details: outcome.details,
      };
      // Written last: its presence marks the step regraded.
      await writeJsonAtomic(join(dir, 'scores.json'), file);
      record(file, false);
      previous = original.snapshot;
    }
  }
  if (!signal.aborted) {
    await writeJsonAtomic(join(regradeDir, 'scores.json'), { id: regrade.id, steps });
    await writeJsonAtomic(join(regradeDir, 'regrade.json'), {
      ...regrade,
      endedAt: new Date().toISOString(),
    });
  }
  return { id: regrade.id, runDir: store.dir, steps, resumed };
}
