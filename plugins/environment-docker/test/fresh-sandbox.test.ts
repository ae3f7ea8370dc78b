import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Memory,
  type PluginDefinition,
  type PluginRef,
  PluginRegistry,
  type RunnableExperiment,
  RunStore,
  startRun,
  type Task,
  type TurnPlan,
} from '@longhaul/core';
import { FakeHarness, fakePlugin } from '@longhaul/testkit';
import { prerequisites } from '@longhaul/testkit/prerequisites';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import docker, { baseImageRef, labels } from '../src/index.js';
import { runOf } from './helpers.js';

const dockerReady = prerequisites.docker([baseImageRef()]);

const ref = (id: string): PluginRef => ({ id, options: {}, label: id });

/** What a turn saw of its sandbox before the agent worked: its container and what it holds. */
interface Seen {
  sandbox: string;
  /** The container id, from the mount of its /etc/hostname. */
  container: string;
  outside: string;
  workspace: string;
}

/** Looks around the sandbox before each turn, then leaves a file outside the workspace. */
function probeMemory(seen: Seen[]): Memory {
  return {
    async beforeTurn({ sandbox }) {
      const run = (script: string) => sandbox.exec(['/bin/sh', '-c', script]).then((r) => r.stdout.trim());
      seen.push({
        sandbox: sandbox.id,
        container: await run("grep -o 'containers/[0-9a-f]*/hostname' /proc/self/mountinfo | cut -d/ -f2"),
        outside: await run('cat /tmp/installed 2>/dev/null || echo none'),
        workspace: await run('ls'),
      });
      await run('echo "from an earlier turn" > /tmp/installed');
      return {};
    },
    async afterTurn() {},
  };
}

async function twoStepTask(root: string): Promise<Task> {
  const seed = join(root, 'seed');
  await mkdir(seed, { recursive: true });
  await writeFile(join(seed, 'README.md'), 'seed\n');
  return {
    id: 'carry',
    title: 'Carry',
    source: 'fixture',
    root,
    entrypoint: 'cat part1.txt',
    language: 'text',
    environment: {},
    seed,
    steps: [0, 1].map((index) => ({
      id: `part-${index + 1}`,
      index,
      prompt: `Write part ${index + 1}.`,
      metadata: {},
    })),
    timeouts: { caseMs: 1000 },
    hash: 'carry-1',
    metadata: {},
  };
}

describe.skipIf(!dockerReady)('a checkpoints run with a fresh sandbox per step', () => {
  let dir = '';
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs each step in its own container, carrying the workspace and nothing else', async () => {
    dir = await mkdtemp(join(tmpdir(), 'longhaul-docker-fresh-'));
    const task = await twoStepTask(join(dir, 'task'));
    const seen: Seen[] = [];
    const script = {
      plan: (t: Task): TurnPlan[] =>
        t.steps.map((step) => ({
          prompt: step.prompt,
          session: 'fresh',
          sandbox: 'fresh',
          workspace: { action: 'carry' },
          steps: [step.index],
          scores: [step.index],
          feedbackCycles: 0,
        })),
    };
    const definitions: PluginDefinition[] = [
      docker,
      fakePlugin(
        'harness',
        'fake',
        () =>
          new FakeHarness({
            turns: ({ turn }) => ({ edits: { [`part${turn + 1}.txt`]: `part ${turn + 1}\n` } }),
          }),
      ),
      fakePlugin('script', 'steps', () => script),
      fakePlugin('memory', 'probe', () => probeMemory(seen)),
    ];
    const registry = PluginRegistry.of(
      definitions.map((definition) => ({
        definition,
        packageName: `p-${definition.id}`,
        version: '0.0.1',
        dir,
      })),
    );
    const experiment: RunnableExperiment = {
      file: join(dir, 'experiment.yaml'),
      baseDir: dir,
      name: 'docker-fresh',
      resolved: 'name: docker-fresh\n',
      registry,
      tasks: [task],
      trials: [
        {
          id: 'carry.fake.steps.probe.r1',
          runId: '',
          runDir: '',
          task,
          condition: {
            key: 'fake/steps/probe',
            harness: ref('fake'),
            environment: ref('docker'),
            script: ref('steps'),
            memory: ref('probe'),
          },
          repeat: 1,
          scorers: [],
          limits: { turnMs: 60_000, stepMs: 180_000, turnsPerStep: 1, trialUsd: 0, onError: 'stop' },
          plugins: [],
        },
      ],
      config: { concurrency: 1, reporters: [] },
    };
    const runDir = join(dir, runOf('run'));
    const result = await startRun(experiment, { runDir });

    const record = result.trials[0]!.record;
    expect(record.steps.map((s) => s.status)).toEqual(['ok', 'ok']);
    expect(seen).toHaveLength(2);
    const [first, second] = seen as [Seen, Seen];
    // Two containers: each turn's sandbox is the container it runs in, and they differ.
    for (const turn of seen) expect(turn.container).toMatch(new RegExp(`^${turn.sandbox}[0-9a-f]*$`));
    expect(second.container).not.toBe(first.container);
    // The second starts with the workspace the first step left, and without what lay outside it.
    expect(first.workspace.split('\n')).toEqual(['README.md']);
    expect(second.workspace.split('\n')).toEqual(['README.md', 'part1.txt']);
    expect(second.outside).toBe('none');
    const store = new RunStore(runDir);
    const files = await store.snapshots.get(record.steps[1]!.snapshot!);
    expect(files.map((f) => f.path)).toEqual(['README.md', 'part1.txt', 'part2.txt']);
    // Both containers are gone once the run ends.
    const left = await new Docker().listContainers({
      all: true,
      filters: { label: [`${labels.run}=${result.runId}`] },
    });
    expect(left).toEqual([]);
  }, 600_000);
});
