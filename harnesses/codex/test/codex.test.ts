import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createGateway, type GatewayConfigInput } from '@longhaul/gateway';
import { afterEach, describe, expect, it } from 'vitest';
import { HostSandbox } from '../../claude-code/test/support/host-sandbox.js';
import { programReady } from '../../claude-code/test/support/program.js';
import { proxiedSession } from '../../claude-code/test/support/recording-proxy.js';
import { ofType, runTurn } from '../../claude-code/test/support/turns.js';
import { bundledBinary, Codex, codexOptions, pinnedVersion } from '../src/index.js';

const ready = programReady('Codex', '@openai/codex', bundledBinary);

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup(models: GatewayConfigInput['models'], options: object = {}) {
  const sandbox = await HostSandbox.create();
  cleanup.push(() => sandbox.close());
  const gateway = await createGateway({ models }, { runDir: sandbox.root });
  cleanup.push(() => gateway.close());
  const harness = new Codex(codexOptions.parse(options), gateway);
  return { sandbox, gateway, harness };
}

// With a model name Codex has no metadata for, it offers `exec_command` as its shell tool.
const shell = (cmd: string) => ({ name: 'exec_command', input: { cmd } });

const models: GatewayConfigInput['models'] = {
  scripted: {
    backend: 'scripted',
    replies: [
      {
        text: 'Writing the file.',
        toolCalls: [shell("printf 'hello\\n' > hello.txt")],
        usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 10, cacheWriteTokens: 0 },
      },
      { text: 'Done: hello.txt written.', usage: { inputTokens: 150, outputTokens: 8 } },
      { when: 'and now', toolCalls: [shell('cp hello.txt copy.txt && echo copied-ok')] },
      { when: 'copied-ok', text: 'Copied.' },
    ],
  },
};

describe.skipIf(!ready)('codex against the gateway (real CLI)', () => {
  it('writes files with its shell tool and records calls, results and usage', async () => {
    const { sandbox, harness } = await setup(models, { reasoningEffort: 'high' });
    expect(await harness.prepare(sandbox)).toMatchObject({ codex: { version: pinnedVersion } });
    const session = await harness.openSession(sandbox, { trialId: 't1' });
    const { events, result } = await runTurn(session, 'write hello.txt');

    expect(result, JSON.stringify(events)).toMatchObject({
      status: 'ok',
      finalText: 'Done: hello.txt written.',
    });
    expect(await readFile(join(sandbox.workspace, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect(result.usage).toMatchObject({ inputTokens: 250, outputTokens: 28, cacheReadTokens: 10 });
    expect(ofType(events, 'session.start')).toEqual([
      expect.objectContaining({ sessionId: session.id, resumed: false, model: 'scripted' }),
    ]);
    const [call] = ofType(events, 'tool.call');
    expect(call).toMatchObject({
      name: 'command_execution',
      input: { command: expect.stringContaining('hello.txt') },
    });
    expect(ofType(events, 'tool.result')).toEqual([
      expect.objectContaining({ id: call!.id, isError: false }),
    ]);
    expect(ofType(events, 'message').map((m) => `${m.role}:${m.text}`)).toEqual([
      'user:write hello.txt',
      'assistant:Writing the file.',
      'assistant:Done: hello.txt written.',
    ]);
    expect((await sandbox.exec(['ls', '-A'])).stdout.trim().split('\n')).toEqual(['hello.txt']);
  });

  it('continues the thread when the same session takes a second turn', async () => {
    const { sandbox, gateway, harness } = await setup(models);
    await harness.prepare(sandbox);
    const session = await harness.openSession(sandbox, { trialId: 't1' });
    const first = await runTurn(session, 'write hello.txt');
    const second = await runTurn(session, 'and now copy it');
    expect(second.result, JSON.stringify(second.events)).toMatchObject({
      status: 'ok',
      finalText: 'Copied.',
    });
    const [start] = ofType(first.events, 'session.start');
    expect(ofType(second.events, 'session.start')).toEqual([
      expect.objectContaining({ sessionId: start?.sessionId, resumed: true }),
    ]);
    expect(session.state()).toMatchObject({ threadId: start?.sessionId });
    // Codex asked for no model but the token's own: none was refused.
    expect(gateway.takeErrors('t1')).toEqual([]);
  });

  it('continues the thread in a later turn and after reopening it from its state', async () => {
    const { sandbox, harness } = await setup(models);
    await harness.prepare(sandbox);
    const session = await harness.openSession(sandbox, { trialId: 't1' });
    await runTurn(session, 'write hello.txt');
    const state = session.state();
    expect(state).toMatchObject({ threadId: session.id });

    const resumed = await harness.openSession(sandbox, { trialId: 't1', resume: state });
    const { events, result } = await runTurn(resumed, 'and now copy it');
    expect(result, JSON.stringify(events)).toMatchObject({ status: 'ok', finalText: 'Copied.' });
    expect(await readFile(join(sandbox.workspace, 'copy.txt'), 'utf8')).toBe('hello\n');
    expect(ofType(events, 'session.start')).toEqual([
      expect.objectContaining({ sessionId: session.id, resumed: true }),
    ]);
  });

  it('gives the model the workspace’s AGENTS.md and the session’s system prompt', async () => {
    const { sandbox, gateway, harness } = await setup(models);
    await harness.prepare(sandbox);
    await sandbox.writeFile('AGENTS.md', 'House rule 7731: tests before code.\n');
    const { session, proxy } = await proxiedSession(harness, gateway, sandbox, {
      trialId: 't1',

      systemPrompt: 'Keep NOTES.md up to date (rule 5519).',
    });
    cleanup.push(() => proxy.close());
    const { result } = await runTurn(session, 'write hello.txt');
    expect(result.status).toBe('ok');
    expect(harness.capabilities.memoryFiles).toEqual(['AGENTS.md']);
    expect(proxy.bodies.some((body) => body.includes('House rule 7731'))).toBe(true);
    expect(proxy.bodies.some((body) => body.includes('rule 5519'))).toBe(true);
  });
});
