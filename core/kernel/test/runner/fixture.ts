import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type Condition,
  type Limits,
  type Memory,
  type PluginDefinition,
  type PluginRef,
  PluginRegistry,
  type RunnableExperiment,
  type Scorer,
  type Script,
  type Task,
  type TrialSpec,
  type TurnPlan,
  tokens,
} from '@longhaul/core';
import {
  FakeEnvironment,
  FakeHarness,
  type FakeHarnessOptions,
  fakePlugin,
  RecordingReporter,
  testFolder,
} from '@longhaul/testkit';

export const ref = (id: string): PluginRef => ({ id, options: {}, label: id });

/** A task on disk: step k's solution holds `out.txt` = "step k" plus every earlier step's file. */
export async function makeTask(root: string, steps = 3, id = 'count'): Promise<Task> {
  const taskRoot = join(root, 'tasks', id);
  await mkdir(join(taskRoot, 'seed'), { recursive: true });
  await writeFile(join(taskRoot, 'seed', 'README.md'), 'seed\n');
  const made: Task['steps'] = [];
  for (let i = 0; i < steps; i++) {
    const solution = join(taskRoot, 'steps', `${i + 1}`, 'solution');
    await mkdir(solution, { recursive: true });
    await writeFile(join(solution, 'README.md'), 'seed\n');
    for (let j = 0; j <= i; j++) await writeFile(join(solution, `part${j + 1}.txt`), `part ${j + 1}\n`);
    made.push({ id: `part-${i + 1}`, index: i, prompt: `Write part ${i + 1}.`, solution, metadata: {} });
  }
  return {
    id,
    title: `Task ${id}`,
    source: 'fixture',
    root: taskRoot,
    entrypoint: 'cat out.txt',
    language: 'text',
    environment: {},
    seed: join(taskRoot, 'seed'),
    steps: made,
    timeouts: { caseMs: 1000 },
    hash: `${id}-hash-1`,
    metadata: {},
  };
}

/** One turn per step; `fresh` sessions (checkpoints) or one `continue`d session (conversation). */
export function stepScript(session: 'fresh' | 'continue' = 'fresh', feedbackCycles = 0): Script {
  return {
    plan: (task): TurnPlan[] =>
      task.steps.map((step) => ({
        prompt: step.prompt,
        session: step.index === 0 ? 'fresh' : session,
        workspace: { action: 'carry' },
        steps: [step.index],
        scores: [step.index],
        feedbackCycles,
      })),
  };
}

/** Every step in one turn, scored at its end (the single-shot control). */
export const oneTurnScript: Script = {
  plan: (task): TurnPlan[] => [
    {
      prompt: task.steps.map((s) => s.prompt).join('\n'),
      session: 'fresh',
      workspace: { action: 'carry' },
      steps: task.steps.map((s) => s.index),
      scores: task.steps.map((s) => s.index),
      feedbackCycles: 0,
    },
  ],
};

/** Scores 1 when the workspace equals the step's reference solution, with feedback otherwise. */
export function matchScorer(
  hooks: {
    onScore?: (ctx: Parameters<Extract<Scorer, { scope: 'step' }>['score']>[0]) => Promise<void> | void;
  } = {},
): Scorer {
  return {
    scope: 'step',
    version: '1',
    async score(ctx) {
      await hooks.onScore?.(ctx);
      const sandbox = await ctx.openSandbox(ctx.snapshot);
      const decoder = new TextDecoder();
      const got = Object.fromEntries((await sandbox.pull()).map((f) => [f.path, decoder.decode(f.data)]));
      await sandbox.close();
      const { readDirectoryFiles } = await import('@longhaul/core');
      const want = Object.fromEntries(
        (await readDirectoryFiles(ctx.step.solution!)).map((f) => [f.path, decoder.decode(f.data)]),
      );
      const equal = JSON.stringify(got) === JSON.stringify(want);
      return [
        {
          metric: 'match',
          value: equal ? 1 : 0,
          ...(equal ? {} : { feedback: 'the files differ from what was asked' }),
        },
        { metric: 'files', value: Object.keys(got).length, detail: Object.keys(got) },
      ];
    },
  };
}

export const noMemory: Memory = { beforeTurn: async () => ({}), afterTurn: async () => {} };

export const defaultLimits: Limits = {
  turnMs: 10_000,
  stepMs: 20_000,
  turnsPerStep: 1,
  trialUsd: 0,
  onError: 'stop',
};

export interface FixtureOptions {
  steps?: number;
  harness?: FakeHarnessOptions;
  script?: Script;
  scorer?: Scorer;
  memory?: Memory;
  limits?: Partial<Limits>;
  repeats?: number;
  environment?: ConstructorParameters<typeof FakeEnvironment>[0];
  extraPlugins?: PluginDefinition[];
}

export interface Fixture {
  dir: string;
  experiment: RunnableExperiment;
  task: Task;
  /** Environments and harnesses in the order the runner made them. */
  environments: FakeEnvironment[];
  harnesses: FakeHarness[];
  reporter: RecordingReporter;
}

/** An experiment over one task, made of fakes, in a fresh temp directory removed after the test. */
export async function makeFixture(options: FixtureOptions = {}): Promise<Fixture> {
  const dir = await testFolder('longhaul-runner-');
  const task = await makeTask(dir, options.steps ?? 3);
  const environments: FakeEnvironment[] = [];
  const harnesses: FakeHarness[] = [];
  const reporter = new RecordingReporter();
  const definitions: PluginDefinition[] = [
    fakePlugin('environment', 'fake', (ctx) => {
      // Snapshots go where the runner keeps them, so scorers and resumes find them.
      const environment = new FakeEnvironment({
        ...options.environment,
        snapshots: ctx.get(tokens.SnapshotStore),
      });
      environments.push(environment);
      return environment;
    }),
    fakePlugin('harness', 'fake', () => {
      const harness = new FakeHarness(options.harness);
      harnesses.push(harness);
      return harness;
    }),
    fakePlugin('script', 'steps', () => options.script ?? stepScript()),
    fakePlugin('memory', 'none', () => options.memory ?? noMemory),
    fakePlugin('scorer', 'match', () => options.scorer ?? matchScorer()),
    fakePlugin('reporter', 'recording', () => reporter),
    ...(options.extraPlugins ?? []),
  ];
  const registry = PluginRegistry.of(
    definitions.map((definition) => ({
      definition,
      packageName: `fake-${definition.kind}`,
      version: '0.0.1',
      dir,
    })),
  );
  const condition: Condition = {
    key: 'fake/steps/none',
    harness: ref('fake'),
    environment: ref('fake'),
    script: ref('steps'),
    memory: ref('none'),
  };
  const trials: TrialSpec[] = Array.from({ length: options.repeats ?? 1 }, (_, r) => ({
    id: `${task.id}.fake.steps.none.r${r + 1}`,
    runId: '',
    runDir: '',
    task,
    condition,
    repeat: r + 1,
    scorers: [ref('match')],
    limits: { ...defaultLimits, ...options.limits },
    plugins: [],
  }));
  const experiment: RunnableExperiment = {
    file: join(dir, 'experiment.yaml'),
    baseDir: dir,
    name: 'fixture',
    resolved: 'name: fixture\n',
    registry,
    tasks: [task],
    trials,
    config: { concurrency: 1, reporters: [ref('recording')] },
  };
  return { dir, experiment, task, environments, harnesses, reporter };
}
