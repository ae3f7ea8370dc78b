import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import {
  type Executor,
  loadExperiment,
  PluginRegistry,
  type ReportContext,
  type RunResult,
  readDirectoryFiles,
  type Scorer,
  type Script,
  startRun,
  type Task,
  TrialHost,
  tokens,
} from '@longhaul/core';
import { describe, expect } from 'vitest';
import { FakeEnvironment } from '../fakes/environment.js';
import { FakeHarness } from '../fakes/harness.js';
import { fakePlugin } from '../fakes/plugin.js';
import { RecordingReporter } from '../fakes/reporter.js';
import { type Check, describeChecks } from './checks.js';

export interface ExecutorSuiteOptions {
  /** Why the executor cannot be tried here (e.g. its server is not installed): the suite is skipped, saying so. */
  skip?: string;
  /** Trials in the experiment (default 3). */
  repeats?: number;
}

/** The same experiment run in-process and through the executor under test. */
export interface ExecutorContext {
  local: RunResult;
  remote: RunResult;
  /** Every event of the run through the executor, in order. */
  events: { type: string; trialId?: string; step?: number }[];
  /** What the reporters were given at the end of each run. */
  reports: { local?: ReportContext; remote?: ReportContext };
}

const stepCount = 3;

/** A task whose step k asks for `part<k>.txt`; its reference solution holds parts 1..k. */
async function writeTask(root: string): Promise<Task> {
  const steps: Task['steps'] = [];
  for (let i = 0; i < stepCount; i++) {
    const solution = join(root, 'steps', String(i + 1), 'solution');
    await mkdir(solution, { recursive: true });
    for (let j = 0; j <= i; j++) await writeFile(join(solution, `part${j + 1}.txt`), `part ${j + 1}\n`);
    steps.push({ id: `part-${i + 1}`, index: i, prompt: `Write part${i + 1}.txt.`, solution, metadata: {} });
  }
  return {
    id: 'parts',
    title: 'Parts',
    source: 'fixture',
    root,
    entrypoint: 'cat part1.txt',
    language: 'text',
    environment: {},
    steps,
    timeouts: { caseMs: 1000 },
    hash: 'parts-1',
    metadata: {},
  };
}

/** One fresh turn per step. */
const perStep: Script = {
  plan: (task) =>
    task.steps.map((step) => ({
      prompt: step.prompt,
      session: 'fresh',
      workspace: { action: 'carry' },
      steps: [step.index],
      scores: [step.index],
      feedbackCycles: 0,
    })),
};

/** 1 when the step's snapshot holds its reference solution's files, byte for byte. */
const solved: Scorer = {
  scope: 'step',
  version: '1',
  async score(ctx) {
    const sandbox = await ctx.openSandbox(ctx.snapshot);
    const text = (files: { path: string; data: Uint8Array }[]) =>
      JSON.stringify(files.map((f) => [f.path, Buffer.from(f.data).toString('base64')]).sort());
    const got = text(await sandbox.pull());
    await sandbox.close();
    return [{ metric: 'solved', value: got === text(await readDirectoryFiles(ctx.step.solution!)) ? 1 : 0 }];
  },
};

/** Testkit's fakes as an installation: what the coordinator and the worker both load the experiment with. */
function fixtureRegistry(task: Task, reporters: RecordingReporter[]): PluginRegistry {
  return PluginRegistry.of(
    [
      fakePlugin('source', 'fixture', () => ({ load: async () => [task] })),
      fakePlugin(
        'environment',
        'fake',
        (ctx) => new FakeEnvironment({ snapshots: ctx.get(tokens.SnapshotStore) }),
      ),
      fakePlugin('harness', 'fake', () => new FakeHarness()),
      fakePlugin('script', 'per-step', () => perStep),
      fakePlugin('memory', 'none', () => ({ beforeTurn: async () => ({}), afterTurn: async () => {} })),
      fakePlugin('scorer', 'solved', () => solved),
      fakePlugin('reporter', 'recording', () => {
        const reporter = new RecordingReporter();
        reporters.push(reporter);
        return reporter;
      }),
    ].map((definition) => ({ definition, packageName: '@longhaul/testkit', version: '0.0.0', dir: '.' })),
  );
}

/** The files of a run's trial directories, relative to the run. */
async function trialFiles(runDir: string): Promise<string[]> {
  const entries = await readdir(join(runDir, 'trials'), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(runDir, join(entry.parentPath, entry.name)))
    .sort();
}

/** Each trial's status and per-step scores, by trial id. */
function outcomes(result: RunResult) {
  return Object.fromEntries(
    result.trials.map(({ spec, record }) => [
      spec.id,
      { status: record.status, steps: record.steps.map((step) => step.scores) },
    ]),
  );
}

/**
 * Runs the experiment in-process, then through `executor`, whose workers (if it has any) are
 * served in this process by a TrialHost that loads the run from the run store as a worker on
 * another machine would.
 */
export async function runExecutorFixture(
  dir: string,
  executor: Executor,
  repeats: number,
): Promise<ExecutorContext> {
  const task = await writeTask(join(dir, 'task'));
  const reporters: RecordingReporter[] = [];
  const registry = fixtureRegistry(task, reporters);
  const file = join(dir, 'experiment.yaml');
  await writeFile(
    file,
    [
      'name: executor-conformance',
      'source: fixture',
      'harness: fake',
      'environment: fake',
      'script: per-step',
      'memory: none',
      'scorers: [solved]',
      'reporters: [recording]',
      `repeats: ${repeats}`,
      'concurrency: 2',
      '',
    ].join('\n'),
  );
  const experiment = await loadExperiment(file, { cwd: dir, registry });
  const local = await startRun(experiment, { runDir: join(dir, 'local') });
  const localReport = reporters.at(-1)?.reports[0];
  const host = new TrialHost({ cwd: dir, registry });
  const stop = new AbortController();
  const serving = executor.serve?.(host, {
    concurrency: 2,
    stop: stop.signal,
    abort: new AbortController().signal,
  });
  let remote: RunResult;
  try {
    remote = await startRun(experiment, { runDir: join(dir, 'remote'), executor });
  } finally {
    stop.abort();
    await serving;
    await host.close();
  }
  const events = (await readFile(join(dir, 'remote', 'events.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  return { local, remote, events, reports: { local: localReport, remote: reporters.at(-1)?.reports[0] } };
}

export const executorChecks: Check<ExecutorContext>[] = [
  {
    name: 'every trial ends with the status and scores it has when run in-process',
    async run({ local, remote }) {
      expect(remote.status).toBe('ok');
      expect(Object.keys(outcomes(remote))).toHaveLength(local.trials.length);
      expect(outcomes(remote)).toEqual(outcomes(local));
      for (const { record } of remote.trials) {
        expect(record.status).toBe('ok');
        expect(record.steps.map((step) => step.scores['solved.solved'])).toEqual([1, 1, 1]);
      }
    },
  },
  {
    name: 'the trial directories hold the files an in-process run writes',
    async run({ local, remote }) {
      expect(await trialFiles(remote.runDir)).toEqual(await trialFiles(local.runDir));
    },
  },
  {
    name: "the run's events tell each trial's start, its steps and its end",
    async run({ remote, events }) {
      for (const { spec } of remote.trials) {
        const mine = events.filter((event) => event.trialId === spec.id);
        expect(
          mine.filter((event) => event.type === 'trial.start'),
          spec.id,
        ).toHaveLength(1);
        expect(
          mine.filter((event) => event.type === 'step.end'),
          spec.id,
        ).toHaveLength(stepCount);
        expect(
          mine.filter((event) => event.type === 'trial.end'),
          spec.id,
        ).toHaveLength(1);
      }
    },
  },
  {
    name: "the reporters are given every trial's record, as in-process",
    async run({ reports }) {
      const trials = (report?: ReportContext) =>
        report?.trials.map(({ record }) => ({
          id: record.id,
          status: record.status,
          steps: record.steps.length,
        }));
      expect(trials(reports.remote)).toEqual(trials(reports.local));
    },
  },
];

/**
 * The executor conformance suite: an experiment of testkit's fake plugins runs in-process and
 * through the executor `factory` makes, and must end the same (plugins need no change to run
 * under it). The executor's workers are served in the test process with a TrialHost, which loads
 * the run from its store as `longhaul worker` does.
 */
export function describeExecutor(
  name: string,
  factory: () => Executor | Promise<Executor>,
  options: ExecutorSuiteOptions = {},
): void {
  const title = `executor conformance: ${name}`;
  if (options.skip) {
    describe.skip(`${title} (skipped: ${options.skip})`, () => {});
    return;
  }
  let dir = '';
  describeChecks(
    title,
    executorChecks,
    async () => {
      dir = await mkdtemp(join(tmpdir(), 'longhaul-executor-'));
      return runExecutorFixture(dir, await factory(), options.repeats ?? 3);
    },
    () => rm(dir, { recursive: true, force: true }),
  );
}
