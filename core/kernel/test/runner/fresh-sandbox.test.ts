import { join } from 'node:path';
import {
  ClassifiedError,
  type ClosableGateway,
  ConfigError,
  emptyUsage,
  type ModelEndpoint,
  RunCancellation,
  RunStore,
  resumeExperiment,
  type SandboxSpec,
  type Script,
  startRun,
  type TurnPlan,
  tokens,
} from '@longhaul/core';
import { FakeEnvironment, FakeHarness, fakePlugin } from '@longhaul/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Fixture, makeFixture, ref } from './fixture.js';

/** One turn per step, each with a fresh session and the given sandbox choice. */
function sandboxScript(sandbox: (index: number) => TurnPlan['sandbox']): Script {
  return {
    plan: (task): TurnPlan[] =>
      task.steps.map((step) => ({
        prompt: step.prompt,
        session: 'fresh',
        sandbox: sandbox(step.index),
        workspace: { action: 'carry' },
        steps: [step.index],
        scores: [step.index],
        feedbackCycles: 0,
      })),
  };
}

/** The agent writes only the part its turn asks for: earlier parts are there only if carried. */
const partWriter = {
  turns: ({ prompt }: { prompt: string }) => {
    const n = /part (\d+)/.exec(prompt)?.[1];
    return { edits: { [`part${n}.txt`]: `part ${n}\n` } };
  },
};

const agentSandboxes = (fixture: Fixture) =>
  fixture.environments.flatMap((e) => e.opened).filter((s) => s.spec.purpose === 'agent');

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a turn that asks for a fresh sandbox', () => {
  it('runs in a new sandbox opened on the workspace the turn before left, with the harness prepared again', async () => {
    const prepare = vi.spyOn(FakeHarness.prototype, 'prepare');
    // When each agent sandbox opens: were the ones before it closed by then?
    const closedAtOpen: boolean[] = [];
    let fixture: Fixture | undefined;
    fixture = await makeFixture({
      script: sandboxScript(() => 'fresh'),
      harness: partWriter,
      environment: {
        failOpen: (spec: SandboxSpec) => {
          if (spec.purpose === 'agent') closedAtOpen.push(agentSandboxes(fixture!).every((s) => s.closed));
          return undefined;
        },
      },
    });
    const runDir = join(fixture.dir, 'run');
    const result = await startRun(fixture.experiment, { runDir });

    const record = result.trials[0]!.record;
    expect(record.steps.map((s) => [s.status, s.scores['match.match']])).toEqual([
      ['ok', 1],
      ['ok', 1],
      ['ok', 1],
    ]);
    // The first turn gets the sandbox the trial opens; each later one a new one.
    const opened = agentSandboxes(fixture);
    expect(opened.map((s) => s.id)).toHaveLength(3);
    expect(closedAtOpen).toEqual([true, true, true]);
    expect(opened.every((s) => s.closed)).toBe(true);
    expect(opened[0]!.spec.from).toBeUndefined();
    // Each opens on a snapshot of the workspace after the step before (here, that step's snapshot).
    expect(opened.slice(1).map((s) => s.spec.from)).toEqual([
      record.steps[0]!.snapshot,
      record.steps[1]!.snapshot,
    ]);
    const store = new RunStore(runDir);
    expect((await store.snapshots.get(opened[2]!.spec.from!)).map((f) => f.path)).toEqual([
      'README.md',
      'part1.txt',
      'part2.txt',
    ]);
    const agentPrepares = prepare.mock.calls.filter(([sandbox]) => opened.some((s) => s === sandbox));
    expect(agentPrepares.map(([sandbox]) => sandbox.id)).toEqual(opened.map((s) => s.id));
    const harness = fixture.harnesses.at(-1)!;
    expect(harness.sessions).toHaveLength(3);
    expect(harness.closedSessions).toHaveLength(3);
  });

  it('keeps the sandbox for turns that do not ask, and gives the first turn no second one', async () => {
    const fixture = await makeFixture({
      script: sandboxScript((index) => (index === 2 ? 'fresh' : index === 0 ? 'fresh' : 'keep')),
      harness: partWriter,
    });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    expect(result.trials[0]!.record.steps.map((s) => s.scores['match.match'])).toEqual([1, 1, 1]);
    const opened = agentSandboxes(fixture);
    expect(opened).toHaveLength(2);
    expect(opened[1]!.spec.from).toBe(result.trials[0]!.record.steps[1]!.snapshot);
  });

  it('carries what the agent wrote after the last step snapshot', async () => {
    const fixture = await makeFixture({
      steps: 2,
      script: {
        plan: (task): TurnPlan[] => [
          // A turn that scores nothing: its work is in no step snapshot.
          {
            prompt: 'warm up',
            session: 'fresh',
            workspace: { action: 'carry' },
            steps: [0],
            scores: [],
            feedbackCycles: 0,
          },
          ...sandboxScript(() => 'fresh').plan(task),
        ],
      },
      harness: {
        turns: ({ turn }) =>
          turn === 0
            ? { edits: { 'notes.txt': 'from the warm-up\n' } }
            : { edits: { [`part${turn}.txt`]: `part ${turn}\n` } },
      },
    });
    const runDir = join(fixture.dir, 'run');
    const result = await startRun(fixture.experiment, { runDir });
    const opened = agentSandboxes(fixture);
    expect(opened).toHaveLength(3);
    const store = new RunStore(runDir);
    expect((await store.snapshots.get(opened[1]!.spec.from!)).map((f) => f.path)).toEqual([
      'README.md',
      'notes.txt',
    ]);
    const step2 = result.trials[0]!.record.steps[1]!;
    expect((await store.snapshots.get(step2.snapshot!)).map((f) => f.path)).toEqual([
      'README.md',
      'notes.txt',
      'part1.txt',
      'part2.txt',
    ]);
  });

  it('after a resume, starts in the sandbox the resumed trial opens, without a second one', async () => {
    const fixture = await makeFixture({ script: sandboxScript(() => 'fresh'), harness: partWriter });
    const runDir = join(fixture.dir, 'run');
    const cancellation = new RunCancellation();
    const first = await startRun(fixture.experiment, {
      runDir,
      cancellation,
      onEvent: (event) => {
        if (event.type === 'turn.start' && event.steps.includes(1)) cancellation.stop(10_000);
      },
    });
    expect(first.trials[0]!.record.steps.map((s) => s.status)).toEqual(['ok', 'ok', 'cancelled']);
    const openedBefore = agentSandboxes(fixture).length;

    const second = await resumeExperiment(fixture.experiment, runDir);
    const record = second.trials[0]!.record;
    expect(record.steps.map((s) => [s.status, s.scores['match.match']])).toEqual([
      ['ok', 1],
      ['ok', 1],
      ['ok', 1],
    ]);
    const resumed = agentSandboxes(fixture).slice(openedBefore);
    expect(resumed).toHaveLength(1);
    expect(resumed[0]!.spec.from).toBe(record.steps[1]!.snapshot);
  });

  it('is a plan problem together with a continued session, reported before the run starts', async () => {
    const fixture = await makeFixture({
      script: {
        plan: (task) =>
          sandboxScript((index) => (index === 1 ? 'fresh' : 'keep'))
            .plan(task)
            .map((turn, t) => ({ ...turn, session: t === 0 ? 'fresh' : 'continue' })),
      },
    });
    const error = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => [i.key, i.message])).toEqual([
      [
        'script',
        "script 'steps' on task 'count': turn 2 asks for a fresh sandbox but continues the session; a fresh sandbox needs session 'fresh'",
      ],
    ]);
  });

  it('ends the step with error:sandbox when the new sandbox cannot open, and replaces it for the next turn', async () => {
    let agentOpens = 0;
    const fixture = await makeFixture({
      script: sandboxScript(() => 'fresh'),
      harness: partWriter,
      limits: { onError: 'continue' },
      environment: {
        failOpen: (spec: SandboxSpec) =>
          spec.purpose === 'agent' && ++agentOpens === 2
            ? new ClassifiedError('sandbox', 'the container did not start')
            : undefined,
      },
    });
    const result = await startRun(fixture.experiment, { runDir: join(fixture.dir, 'run') });
    const steps = result.trials[0]!.record.steps;
    expect(steps.map((s) => s.status)).toEqual(['ok', 'error:sandbox', 'ok']);
    // Step 3 starts from the workspace step 1 left: part 2 was never written.
    expect(steps[2]!.scores['match.match']).toBe(0);
    const opened = agentSandboxes(fixture);
    expect(opened).toHaveLength(2);
    expect(opened[1]!.spec.from).toBe(steps[0]!.snapshot);
    expect(opened.every((s) => s.closed)).toBe(true);
  });
});

describe('the model endpoint of a fresh sandbox', () => {
  class EndpointLog implements ClosableGateway {
    readonly hosts: string[] = [];
    async endpoint(_trialId: string, hostAddress: string): Promise<ModelEndpoint> {
      this.hosts.push(hostAddress);
      const baseUrl = `http://${hostAddress}:9`;
      return { baseUrl, hostBaseUrl: 'http://127.0.0.1:9', token: 't', model: 'oracle' };
    }
    focus(): void {}
    takeUsage() {
      return emptyUsage();
    }
    release(): void {}
    async close(): Promise<void> {}
  }

  async function runWithHosts(host: (n: number) => string) {
    const environment = fakePlugin('environment', 'hosts', (ctx) => {
      const made = new FakeEnvironment({ snapshots: ctx.get(tokens.SnapshotStore) });
      const open = made.open.bind(made);
      let agentOpens = 0;
      made.open = async (spec) => {
        const sandbox = await open(spec);
        if (spec.purpose === 'agent') (sandbox as { hostAddress: string }).hostAddress = host(++agentOpens);
        return sandbox;
      };
      return made;
    });
    const fixture = await makeFixture({
      script: sandboxScript(() => 'fresh'),
      harness: partWriter,
      extraPlugins: [environment],
    });
    const gateway = new EndpointLog();
    const experiment = {
      ...fixture.experiment,
      trials: fixture.experiment.trials.map((t) => ({
        ...t,
        condition: { ...t.condition, environment: ref('hosts') },
      })),
      config: { ...fixture.experiment.config, models: { oracle: { backend: 'oracle' } } },
    };
    const result = await startRun(experiment, {
      runDir: join(fixture.dir, 'run'),
      openGateway: async () => gateway,
    });
    expect(result.trials[0]!.record.steps.map((s) => s.scores['match.match'])).toEqual([1, 1, 1]);
    return { gateway, sessions: fixture.harnesses.at(-1)!.sessions };
  }

  it('is asked for again when the sandbox reaches the host at another address', async () => {
    const { gateway, sessions } = await runWithHosts((n) => `10.0.${n}.1`);
    expect(gateway.hosts).toEqual(['10.0.1.1', '10.0.2.1', '10.0.3.1']);
    expect(sessions.map((s) => s.options.model?.baseUrl)).toEqual([
      'http://10.0.1.1:9',
      'http://10.0.2.1:9',
      'http://10.0.3.1:9',
    ]);
  });

  it('is kept when the address is the same', async () => {
    const { gateway, sessions } = await runWithHosts(() => '172.17.0.1');
    expect(gateway.hosts).toEqual(['172.17.0.1']);
    expect(sessions.map((s) => s.options.model?.baseUrl)).toEqual(Array(3).fill('http://172.17.0.1:9'));
  });
});
