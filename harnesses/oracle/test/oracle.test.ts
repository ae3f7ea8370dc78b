import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Harness, Session, Task, TrajectoryEvent, TurnFocus, TurnResult } from '@longhaul/core';
import {
  describeHarness,
  FakeEnvironment,
  type FakeSandbox,
  instantiatePlugin,
  sampleTask,
} from '@longhaul/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import oracle, { OracleHarness } from '../src/index.js';

let task: Task;
const roots: string[] = [];

afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function put(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

beforeAll(async () => {
  const root = await mkdtemp(join(tmpdir(), 'longhaul-oracle-'));
  roots.push(root);
  await put(join(root, 'seed'), { 'README.md': 'seed\n' });
  await put(join(root, 's1'), {
    'main.py': 'print(1)\n',
    'lib/util.py': 'X = 1\n',
    'run.sh': 'python main.py\n',
  });
  await chmod(join(root, 's1', 'run.sh'), 0o755);
  await put(join(root, 's2'), { 'main.py': 'print(2)\n', 'new.py': 'Y = 2\n', 'run.sh': 'python main.py\n' });
  await chmod(join(root, 's2', 'run.sh'), 0o755);
  const base = sampleTask(3);
  task = {
    ...base,
    root,
    seed: join(root, 'seed'),
    steps: [
      { ...base.steps[0]!, solution: join(root, 's1') },
      { ...base.steps[1]!, solution: join(root, 's2') },
      { ...base.steps[2]!, solution: undefined },
    ],
  };
});

async function openSandbox(): Promise<FakeSandbox> {
  return new FakeEnvironment().open({
    runId: 'r',
    trialId: 't',
    purpose: 'agent',
    task: { id: task.id, root: task.root, seed: task.seed },
    needs: {},
  });
}

const focusOn = (...indexes: number[]): TurnFocus => ({ task, steps: indexes.map((i) => task.steps[i]!) });

async function turn(session: Session, focus: TurnFocus, signal = new AbortController().signal) {
  const events: TrajectoryEvent[] = [];
  for await (const event of session.turn('prompt', { signal, focus, limits: {} })) events.push(event);
  const end = events.at(-1);
  if (end?.type !== 'turn.end') throw new Error('no turn.end');
  return { events, result: end.result as TurnResult };
}

const calls = (events: TrajectoryEvent[]) =>
  events.flatMap((e) => (e.type === 'tool.call' ? [[e.name, (e.input as { path: string }).path]] : []));

describeHarness('oracle', async (pace) => {
  const sandbox = await openSandbox();
  return {
    harness: instantiatePlugin<Harness>(oracle, pace === 'slow' ? { delayMs: 30_000 } : {}),
    sandbox,
    focus: focusOn(0),
    dispose: () => sandbox.close(),
  };
});

describe('oracle harness', () => {
  it('makes the workspace equal to the solution, reporting each write and deletion', async () => {
    const sandbox = await openSandbox();
    const session = await instantiatePlugin<Harness>(oracle).openSession(sandbox, { trialId: 't' });
    const { events, result } = await turn(session, focusOn(0));
    expect(sandbox.text()).toEqual({
      'lib/util.py': 'X = 1\n',
      'main.py': 'print(1)\n',
      'run.sh': 'python main.py\n',
    });
    expect(sandbox.files.get('run.sh')?.mode).toBe(0o755);
    expect(calls(events)).toEqual([
      ['write_file', 'lib/util.py'],
      ['write_file', 'main.py'],
      ['write_file', 'run.sh'],
      ['delete_file', 'README.md'],
    ]);
    expect(events[0]).toMatchObject({ type: 'session.start', resumed: false });
    expect(result).toMatchObject({
      status: 'ok',
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
    });
    expect(result.finalText).toContain('3 files written, 1 deleted');

    const second = await turn(session, focusOn(1));
    expect(sandbox.text()).toEqual({
      'main.py': 'print(2)\n',
      'new.py': 'Y = 2\n',
      'run.sh': 'python main.py\n',
    });
    expect(calls(second.events)).toEqual([
      ['write_file', 'main.py'],
      ['write_file', 'new.py'],
      ['delete_file', 'lib/util.py'],
    ]);
    expect(second.events.some((e) => e.type === 'session.start')).toBe(false);
  });

  it('does not claim files the environment keeps out of the workspace', async () => {
    const sandbox = await openSandbox();
    const push = sandbox.push.bind(sandbox);
    sandbox.push = (files) => push(files.filter((f) => !f.path.includes('__pycache__')));
    const root = await mkdtemp(join(tmpdir(), 'longhaul-oracle-cache-'));
    roots.push(root);
    await put(root, { 'main.py': 'print(1)\n', '__pycache__/main.cpython-311.pyc': 'bytecode' });
    const session = await instantiatePlugin<Harness>(oracle).openSession(sandbox, { trialId: 't' });
    const { events } = await turn(session, { task, steps: [{ ...task.steps[0]!, solution: root }] });
    expect(calls(events)).toEqual([
      ['write_file', 'main.py'],
      ['delete_file', 'README.md'],
    ]);
  });

  it('writes the solution of the last step when a turn covers several (single-shot)', async () => {
    const sandbox = await openSandbox();
    const session = await instantiatePlugin<Harness>(oracle).openSession(sandbox, { trialId: 't' });
    expect((await turn(session, focusOn(0, 1))).result.status).toBe('ok');
    expect(Object.keys(sandbox.text())).toEqual(['main.py', 'new.py', 'run.sh']);
  });

  it('ends the turn failed, saying why, when the step has no reference solution', async () => {
    const sandbox = await openSandbox();
    const session = await instantiatePlugin<Harness>(oracle).openSession(sandbox, { trialId: 't' });
    const { result } = await turn(session, focusOn(2));
    expect(result.status).toBe('failed');
    expect(result.error).toBe(
      `step ${task.steps[2]!.id} of task ${task.id} has no reference solution, so the oracle harness cannot solve it`,
    );
    expect(sandbox.text()).toEqual({ 'README.md': 'seed\n' });
  });

  it('ends the turn failed when the solution directory does not exist', async () => {
    const sandbox = await openSandbox();
    const session = await instantiatePlugin<Harness>(oracle).openSession(sandbox, { trialId: 't' });
    const focus = { task, steps: [{ ...task.steps[0]!, solution: join(task.root, 'missing') }] };
    const { result } = await turn(session, focus);
    expect(result).toMatchObject({ status: 'failed', error: expect.stringContaining('does not exist') });
  });

  it("with solutions, writes each step's prepared workspace and leaves the step's reference alone", async () => {
    const root = await mkdtemp(join(tmpdir(), 'longhaul-oracle-prepared-'));
    roots.push(root);
    // What an imperfect agent leaves: checkpoint 1's work at step 2, and an empty workspace at step 1.
    await put(join(root, task.id, task.steps[1]!.id), { 'main.py': 'print(1)\n' });
    await mkdir(join(root, task.id, task.steps[0]!.id));
    const sandbox = await openSandbox();
    const harness = instantiatePlugin<Harness>(oracle, { solutions: root });
    const session = await harness.openSession(sandbox, { trialId: 't' });
    const second = await turn(session, focusOn(1));
    expect(sandbox.text()).toEqual({ 'main.py': 'print(1)\n' });
    expect(second.result.finalText).toMatch(/^The workspace now holds the prepared workspace of step /);
    expect((await turn(session, focusOn(0))).result.status).toBe('ok');
    expect(sandbox.text()).toEqual({});
    // A step with no prepared folder fails, naming the folder, even where a reference exists.
    const missing = await turn(session, focusOn(2));
    expect(missing.result).toMatchObject({
      status: 'failed',
      error: `the prepared workspace ${join(root, task.id, task.steps[2]!.id)} of step ${task.steps[2]!.id} of task ${task.id} does not exist (the oracle's solutions option)`,
    });
    expect(task.steps[1]!.solution).toBe(join(task.root, 's2'));
    // A relative folder starts from the experiment's directory.
    const relative = new OracleHarness({ delayMs: 0, solutions: basename(root) }, dirname(root));
    const again = await openSandbox();
    await turn(await relative.openSession(again, { trialId: 't' }), focusOn(1));
    expect(again.text()).toEqual({ 'main.py': 'print(1)\n' });
  });

  it('waits delayMs, and an abort during the wait ends the turn with its reason and no writes', async () => {
    const sandbox = await openSandbox();
    const session = await instantiatePlugin<Harness>(oracle, { delayMs: 600_000 }).openSession(sandbox, {
      trialId: 't',
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort('budget'), 100);
    const started = Date.now();
    const { result } = await turn(session, focusOn(0), controller.signal);
    // Far less than the 10 min delay: the abort ended the wait.
    expect(Date.now() - started).toBeLessThan(120_000);
    expect(result.status).toBe('budget');
    expect(sandbox.text()).toEqual({ 'README.md': 'seed\n' });
  });

  it('waits while pauseFile names the step, writes once it no longer does, and ends on an abort', async () => {
    const pauseFile = join(await mkdtemp(join(tmpdir(), 'oracle-pause-')), 'pause');
    await writeFile(pauseFile, `other\n${task.steps[0]!.id}\n`);
    const sandbox = await openSandbox();
    const session = await instantiatePlugin<Harness>(oracle, { pauseFile }).openSession(sandbox, {
      trialId: 't',
    });
    let settled = false;
    const paused = turn(session, focusOn(0)).finally(() => {
      settled = true;
    });
    // Several polls of the file later, the turn still waits and has written nothing.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);
    expect(sandbox.text()).toEqual({ 'README.md': 'seed\n' });
    await writeFile(pauseFile, 'other\n');
    expect((await paused).result.status).toBe('ok');
    expect(Object.keys(sandbox.text())).not.toEqual(['README.md']);

    await writeFile(pauseFile, `${task.steps[1]!.id}\n`);
    const controller = new AbortController();
    const aborted = turn(session, focusOn(1), controller.signal);
    controller.abort('cancelled');
    expect((await aborted).result.status).toBe('cancelled');
    await rm(dirname(pauseFile), { recursive: true, force: true });
  });

  it('ends with class sandbox when the sandbox is gone', async () => {
    const sandbox = await openSandbox();
    const session = await instantiatePlugin<Harness>(oracle).openSession(sandbox, { trialId: 't' });
    await sandbox.close();
    const { events, result } = await turn(session, focusOn(0));
    expect(result.status).toBe('error:sandbox');
    expect(events.some((e) => e.type === 'error' && e.errorClass === 'sandbox')).toBe(true);
  });

  it('declares resume, no memory files and no hooks, and marks resumed sessions', async () => {
    const harness = instantiatePlugin<Harness>(oracle);
    expect(harness.capabilities).toEqual({ resume: true, memoryFiles: [], hooks: false });
    const session = await harness.openSession(await openSandbox(), { trialId: 't', resume: {} });
    expect((await turn(session, focusOn(0))).events[0]).toMatchObject({
      type: 'session.start',
      resumed: true,
    });
  });

  it('rejects unknown and negative options', () => {
    expect(() => oracle.options.parse({ delay: 5 })).toThrow(/delay/);
    expect(() => oracle.options.parse({ delayMs: -1 })).toThrow();
  });
});
