import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createGateway, type Gateway, type GatewayConfigInput } from '@longhaul/gateway';
import { afterEach, describe, expect, it } from 'vitest';
import { bundledBinary, ClaudeCode, claudeCodeOptions, pinnedVersion } from '../src/index.js';
import { HostSandbox } from './support/host-sandbox.js';
import { programReady } from './support/program.js';
import { proxiedSession } from './support/recording-proxy.js';
import { ofType, runTurn } from './support/turns.js';

const ready = programReady('Claude Code', '@anthropic-ai/claude-code', bundledBinary);

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup(models: (workspace: string) => GatewayConfigInput['models'], options: object = {}) {
  const sandbox = await HostSandbox.create();
  cleanup.push(() => sandbox.close());
  const gateway: Gateway = await createGateway(
    { models: models(sandbox.workspace) },
    { runDir: sandbox.root },
  );
  cleanup.push(() => gateway.close());
  const harness = new ClaudeCode(claudeCodeOptions.parse(options), gateway);
  return { sandbox, gateway, harness };
}

const writeThenDone = (workspace: string): GatewayConfigInput['models'] => ({
  scripted: {
    backend: 'scripted',
    replies: [
      {
        text: 'Writing the file.',
        toolCalls: [
          { name: 'Write', input: { file_path: join(workspace, 'hello.txt'), content: 'hello\n' } },
        ],
        usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 10, cacheWriteTokens: 5 },
      },
      { text: 'Done: hello.txt written.', usage: { inputTokens: 150, outputTokens: 8 } },
      { when: 'and now', toolCalls: [{ name: 'Bash', input: { command: 'cat hello.txt > copy.txt' } }] },
      { when: 'Bash completed', text: 'Copied.' },
    ],
  },
});

describe.skipIf(!ready)('claude-code against the gateway (real CLI)', () => {
  it('writes files with its tools and records calls, results and usage', async () => {
    const { sandbox, harness } = await setup(writeThenDone);
    const lock = await harness.prepare(sandbox);
    expect(lock).toMatchObject({ 'claude-code': { version: pinnedVersion } });
    const session = await harness.openSession(sandbox, { trialId: 't1' });
    const { events, result } = await runTurn(session, 'write hello.txt');
    expect(await readFile(join(sandbox.workspace, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect(result.status).toBe('ok');
    expect(result.finalText).toBe('Done: hello.txt written.');
    expect(result.usage).toMatchObject({
      inputTokens: 250,
      outputTokens: 28,
      cacheReadTokens: 10,
      cacheWriteTokens: 5,
    });
    const [start] = ofType(events, 'session.start');
    expect(start).toMatchObject({ sessionId: session.id, resumed: false, model: 'scripted' });
    const [call] = ofType(events, 'tool.call');
    expect(call).toMatchObject({ name: 'Write', input: { content: 'hello\n' } });
    expect(ofType(events, 'tool.result')).toEqual([
      expect.objectContaining({ id: call!.id, isError: false, output: expect.stringContaining('hello.txt') }),
    ]);
    expect(ofType(events, 'message').map((m) => `${m.role}:${m.text}`)).toEqual([
      'user:write hello.txt',
      'assistant:Writing the file.',
      'assistant:Done: hello.txt written.',
    ]);
    // The agent's config and transcripts live outside the workspace.
    expect((await sandbox.exec(['ls', '-A'])).stdout.trim().split('\n')).toEqual(['hello.txt']);
  });

  it('continues the session when the same session takes a second turn', async () => {
    const { sandbox, gateway, harness } = await setup(writeThenDone);
    await harness.prepare(sandbox);
    const session = await harness.openSession(sandbox, { trialId: 't1' });
    await runTurn(session, 'write hello.txt');
    const second = await runTurn(session, 'and now copy it');
    expect(second.result, JSON.stringify(second.events)).toMatchObject({
      status: 'ok',
      finalText: 'Copied.',
    });
    // Claude Code asked for no model but the token's own (a Write and a Bash turn): none refused.
    expect(gateway.takeErrors('t1')).toEqual([]);
    expect(ofType(second.events, 'session.start')).toEqual([
      expect.objectContaining({ sessionId: session.id, resumed: true }),
    ]);
  });

  it('continues the session in a later turn and after reopening it from its state', async () => {
    const { sandbox, harness } = await setup(writeThenDone, { model: 'scripted' });
    await harness.prepare(sandbox);
    const session = await harness.openSession(sandbox, { trialId: 't1' });
    await runTurn(session, 'write hello.txt');
    const state = session.state();
    expect(state).toMatchObject({ sessionId: session.id });

    const resumed = await harness.openSession(sandbox, { trialId: 't1', resume: state });
    const { events, result } = await runTurn(resumed, 'and now copy it');
    expect(result, JSON.stringify(events)).toMatchObject({ status: 'ok' });
    expect(await readFile(join(sandbox.workspace, 'copy.txt'), 'utf8')).toBe('hello\n');
    expect(ofType(events, 'session.start')).toEqual([
      expect.objectContaining({ sessionId: session.id, resumed: true }),
    ]);
    expect(ofType(events, 'tool.call')).toEqual([expect.objectContaining({ name: 'Bash' })]);
  });

  it('gives the model the workspace’s CLAUDE.md', async () => {
    const { sandbox, gateway, harness } = await setup(writeThenDone);
    await harness.prepare(sandbox);
    await sandbox.writeFile('CLAUDE.md', 'House rule 4412: tests before code.\n');
    const { session, proxy } = await proxiedSession(harness, gateway, sandbox, {
      trialId: 't1',
    });
    cleanup.push(() => proxy.close());
    const { result } = await runTurn(session, 'write hello.txt');
    expect(result.status).toBe('ok');
    expect(harness.capabilities.memoryFiles).toEqual(['CLAUDE.md']);
    expect(proxy.bodies.some((body) => body.includes('House rule 4412'))).toBe(true);
  });

  it('passes the system prompts, tool restrictions and thinking budget to Claude Code', async () => {
    // Claude Code picks its own thinking budget for models it does not know; name a known one.
    const known = (workspace: string) => ({ 'claude-sonnet-4-5': writeThenDone(workspace)!.scripted! });
    const { sandbox, gateway, harness } = await setup(known, {
      appendSystemPrompt: 'Experiment rule 6021.',
      disallowedTools: ['WebFetch', 'WebSearch'],
      thinkingTokens: 2048,
    });
    await harness.prepare(sandbox);
    const { session, proxy } = await proxiedSession(harness, gateway, sandbox, {
      trialId: 't1',

      systemPrompt: 'Memory rule 3390.',
    });
    cleanup.push(() => proxy.close());
    expect((await runTurn(session, 'write hello.txt')).result.status).toBe('ok');
    const request = JSON.parse(proxy.bodies[0]!) as {
      system: unknown;
      tools: { name: string }[];
      thinking?: unknown;
    };
    const system = JSON.stringify(request.system);
    expect(system).toContain('Experiment rule 6021.');
    expect(system).toContain('Memory rule 3390.');
    const tools = request.tools.map((tool) => tool.name);
    expect(tools).toContain('Write');
    expect(tools).not.toContain('WebFetch');
    expect(tools).not.toContain('WebSearch');
    expect(request.thinking).toMatchObject({ type: 'enabled', budget_tokens: 2048 });
  });
});
