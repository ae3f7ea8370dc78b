import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ClassifiedError,
  type ExecOptions,
  Slots,
  type StepScoreContext,
  type Task,
  type TrialSpec,
} from '@longhaul/core';
import { FakeEnvironment, type FakeSandbox } from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import plugin, { TestsScorer } from '../src/index.js';
import { taskWith } from './harness.js';

/** `python3 add.py FILE`: prints the sum of the numbers in FILE, as the fake sandbox sees it. */
function adder(argv: string[], _options: ExecOptions, sandbox: FakeSandbox) {
  const text = sandbox.text()[argv[2] ?? ''];
  if (text === undefined) return { exitCode: 1, stderr: 'no such file\n' };
  const sum = text
    .split(/\s+/)
    .filter(Boolean)
    .reduce((total, word) => total + Number(word), 0);
  return { stdout: `${sum}\n` };
}

async function adderTask(cases: number): Promise<Task> {
  const files: Record<string, string> = {
    'task.yaml': 'id: add\ntitle: Add\nentrypoint: python3 add.py\nlanguage: python\n',
  };
  for (let n = 1; n <= cases; n++) {
    files[`steps/01-add/cases/core/c${n}.yaml`] =
      `files: { in.txt: "${n} ${n}" }\nargv: [in.txt]\nexpect: { stdout: { text: "${2 * n}\\n" } }\n`;
  }
  return taskWith(files);
}

async function context(
  task: Task,
  environment: FakeEnvironment,
  signal?: AbortSignal,
): Promise<StepScoreContext> {
  const snapshot = await environment.snapshots.put([]);
  return {
    task,
    step: task.steps[0]!,
    trial: { id: 'trial' } as TrialSpec,
    snapshot,
    snapshots: environment.snapshots,
    openSandbox: (from) =>
      environment.open({
        runId: 'run',
        trialId: 'trial',
        purpose: 'scorer',
        task,
        needs: task.environment,
        from,
      }),
    outDir: await mkdtemp(join(tmpdir(), 'longhaul-fake-out-')),
    status: 'ok',
    signal: signal ?? new AbortController().signal,
  };
}

describe('scorer tests with the testkit fake environment', () => {
  it('spreads cases over `concurrency` sandboxes opened from the snapshot, and closes them all', async () => {
    const task = await adderTask(7);
    const environment = new FakeEnvironment({ exec: adder });
    const ctx = await context(task, environment);
    const scores = await new TestsScorer(plugin.options.parse({ concurrency: 3 })).score(ctx);
    expect(scores.find((score) => score.metric === 'strict')?.value).toBe(1);
    expect(scores.find((score) => score.metric === 'core.passed')?.value).toBe(7);
    expect(environment.opened).toHaveLength(3);
    for (const sandbox of environment.opened) {
      expect(sandbox.spec).toMatchObject({ purpose: 'scorer', from: ctx.snapshot });
      expect(sandbox.closed).toBe(true);
      // Input files of the cases are gone again once each case is done.
      expect(sandbox.text()).toEqual({});
    }
    expect(environment.opened.flatMap((sandbox) => sandbox.execs)).toHaveLength(7);
  });

  it("shares the run's case slots between trials scoring at once: no more sandboxes than slots", async () => {
    const task = await adderTask(6);
    const slots = new Slots(2);
    let open = 0;
    let most = 0;
    const environments = [1, 2].map(
      () =>
        new FakeEnvironment({
          exec: (argv, options, sandbox) => {
            most = Math.max(most, open);
            return adder(argv, options, sandbox);
          },
        }),
    );
    const counted = async (environment: FakeEnvironment) => {
      const ctx = await context(task, environment);
      const openSandbox = ctx.openSandbox;
      ctx.openSandbox = async (from) => {
        const sandbox = await openSandbox(from);
        open += 1;
        const close = sandbox.close.bind(sandbox);
        sandbox.close = async () => {
          open -= 1;
          await close();
        };
        return sandbox;
      };
      return ctx;
    };
    const scorers = [1, 2].map(() => new TestsScorer(plugin.options.parse({ concurrency: 4 }), slots));
    const contexts = await Promise.all(environments.map(counted));
    const results = await Promise.all(scorers.map((scorer, n) => scorer.score(contexts[n]!)));
    for (const scores of results)
      expect(scores.find((score) => score.metric === 'core.passed')?.value).toBe(6);
    expect(most).toBeLessThanOrEqual(2);
    expect(environments.flatMap((environment) => environment.opened).length).toBeLessThanOrEqual(4);
    expect(slots.available).toBe(2);
  });

  it('closes every sandbox when the environment fails during a case, and rejects with its error', async () => {
    const task = await adderTask(6);
    let calls = 0;
    const environment = new FakeEnvironment({
      exec: (argv, options, sandbox) => {
        calls += 1;
        if (calls === 3) throw new ClassifiedError('sandbox', 'container died');
        return adder(argv, options, sandbox);
      },
    });
    const ctx = await context(task, environment);
    await expect(new TestsScorer(plugin.options.parse({ concurrency: 2 })).score(ctx)).rejects.toThrow(
      'container died',
    );
    expect(environment.opened.every((sandbox) => sandbox.closed)).toBe(true);
    expect(calls).toBeLessThan(6);
  });

  it('stops when the step is cancelled', async () => {
    const task = await adderTask(2);
    const controller = new AbortController();
    controller.abort('cancelled');
    const environment = new FakeEnvironment({ exec: adder });
    const ctx = await context(task, environment, controller.signal);
    await expect(new TestsScorer(plugin.options.parse({})).score(ctx)).rejects.toBeDefined();
    expect(environment.opened.every((sandbox) => sandbox.closed)).toBe(true);
  });
});
