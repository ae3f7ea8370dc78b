import { setTimeout as sleep } from 'node:timers/promises';
import type { Harness, Session, TrajectoryEvent, TurnResult } from '@longhaul/core';
import {
  describeHarness,
  FakeEnvironment,
  type FakeExec,
  type FakeSandbox,
  instantiatePlugin,
  sampleTask,
} from '@longhaul/testkit';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

const task = sampleTask(1);
const focus = { task, steps: task.steps };

/** A sandbox whose commands are answered by `exec` (testkit's in-memory fake). */
function openSandbox(exec: FakeExec): Promise<FakeSandbox> {
  return new FakeEnvironment({ exec }).open({
    runId: 'run',
    trialId: 'trial',
    purpose: 'agent',
    task: { id: task.id, root: task.root },
    needs: {},
  });
}

async function turn(session: Session, prompt = 'Solve the step.') {
  const events: TrajectoryEvent[] = [];
  for await (const event of session.turn(prompt, {
    signal: new AbortController().signal,
    focus,
    limits: {},
  })) {
    events.push(event);
  }
  const last = events.at(-1);
  if (last?.type !== 'turn.end') throw new Error('the turn did not end with turn.end');
  return { events, result: last.result as TurnResult };
}

// The contract every harness keeps (testkit's conformance suite). For 'slow', the command keeps
// working until the turn is aborted, so the suite can check that aborts end the turn promptly.
describeHarness('{{id}}', async (pace) => {
  const sandbox = await openSandbox(async (_argv, options) => {
    if (pace === 'slow') await sleep(60_000, undefined, { signal: options.signal }).catch(() => {});
    return { exitCode: 0, stdout: 'done\n' };
  });
  return {
    harness: instantiatePlugin<Harness>(plugin, { command: ['my-agent', '--yes'] }),
    sandbox,
    focus,
    dispose: () => sandbox.close(),
  };
});

describe('harness {{id}}', () => {
  it('runs the command with the prompt on its standard input and ends ok with its output', async () => {
    const stdins: string[] = [];
    const sandbox = await openSandbox((_argv, options) => {
      stdins.push(String(options.stdin));
      return { exitCode: 0, stdout: 'wrote greet.sh\n' };
    });
    const harness = instantiatePlugin<Harness>(plugin, { command: ['my-agent', '--yes'] });
    const session = await harness.openSession(sandbox, { trialId: 'trial' });
    const { events, result } = await turn(session, 'Write greet.sh.');
    expect(sandbox.execs).toEqual([['my-agent', '--yes']]);
    expect(stdins).toEqual(['Write greet.sh.']);
    expect(events.map((event) => event.type)).toEqual([
      'session.start',
      'tool.call',
      'tool.result',
      'message',
      'turn.end',
    ]);
    expect(result).toMatchObject({ status: 'ok', finalText: 'wrote greet.sh' });
  });

  it('ends with error:crash, saying why, when the command exits non-zero', async () => {
    const sandbox = await openSandbox(() => ({ exitCode: 3, stderr: 'no such model\n' }));
    const harness = instantiatePlugin<Harness>(plugin, { command: ['my-agent'] });
    const { result } = await turn(await harness.openSession(sandbox, { trialId: 'trial' }));
    expect(result).toMatchObject({ status: 'error:crash', error: 'my-agent exited with 3: no such model' });
  });

  it('hands the command the gateway address, token and model, when the agent has a model', async () => {
    const environments: Record<string, string>[] = [];
    const sandbox = await openSandbox((_argv, options) => {
      environments.push(options.env ?? {});
      return { exitCode: 0 };
    });
    const harness = instantiatePlugin<Harness>(plugin, { command: ['my-agent'], model: 'sonnet' });
    const model = {
      baseUrl: 'http://10.0.0.1:9000',
      hostBaseUrl: 'http://127.0.0.1:9000',
      token: 't1',
      model: 'sonnet',
    };
    await turn(await harness.openSession(sandbox, { trialId: 'trial', model }));
    expect(environments).toEqual([
      { LONGHAUL_BASE_URL: 'http://10.0.0.1:9000', LONGHAUL_API_KEY: 't1', LONGHAUL_MODEL: 'sonnet' },
    ]);
  });

  it('refuses options it does not know, and a missing command', () => {
    expect(() => plugin.options.parse({ command: ['x'], comand: ['y'] })).toThrow(/comand/);
    expect(() => plugin.options.parse({})).toThrow(/command/);
  });
});
