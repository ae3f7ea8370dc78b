import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createAnthropic } from '@ai-sdk/anthropic';
import Anthropic from '@anthropic-ai/sdk';
import { generateText, stepCountIs } from 'ai';
import { describe, expect, it } from 'vitest';
import { anthropicCodec } from '../src/api/anthropic.js';
import type { ModelReply } from '../src/index.js';
import { add, startGateway, tempDir } from './helpers.js';
import { fakeUpstream, sendStream } from './upstream.js';

const secret = 'sk-ant-record-test-SECRET-9876';

/** An upstream whose answers differ on every call, so a replay that guessed would show. */
async function countingUpstream() {
  return fakeUpstream((request, res, index) => {
    const reply: ModelReply = {
      model: 'claude-sonnet-4-5',
      content:
        index % 2 === 0
          ? [{ type: 'tool_call', id: `toolu_${index}`, name: 'add', input: { a: index, b: 1 } }]
          : [{ type: 'text', text: `answer #${index}` }],
      stopReason: index % 2 === 0 ? 'tool_use' : 'end',
      usage: { inputTokens: 10 + index, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    };
    const parsed = anthropicCodec.parseRequest(request.body, '');
    if (!parsed.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify(anthropicCodec.renderReply(reply, parsed)));
    }
    sendStream(res, anthropicCodec.renderStream(reply, parsed).join(''));
  });
}

/** A conversation whose prompt names a fresh temporary directory and the current time, as agent CLIs do. */
async function converse(baseUrl: string, token: string) {
  const anthropic = createAnthropic({ baseURL: `${baseUrl}/v1`, apiKey: token });
  const workdir = await tempDir('lh-work-');
  const result = await generateText({
    model: anthropic('sonnet'),
    tools: { add },
    prompt: `Working directory: ${workdir}. Now: ${new Date().toISOString()}. Add.`,
    stopWhen: stepCountIs(4),
  });
  const client = new Anthropic({ baseURL: baseUrl, apiKey: token, maxRetries: 0 });
  const plain = await client.messages.create({
    model: 'sonnet',
    max_tokens: 10,
    messages: [{ role: 'user', content: 'second' }],
  });
  return {
    calls: result.steps.flatMap((step) => step.toolCalls.map((call) => call.input)),
    text: result.text,
    plain: plain.content,
  };
}

async function filesUnder(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map((entry) => readFile(join(entry.parentPath, entry.name), 'utf8')),
  );
  return texts.join('\n');
}

describe('record and replay', () => {
  it('replays a recorded run offline to the same replies, and never stores the provider key', async () => {
    const upstream = await countingUpstream();
    const logs: string[] = [];
    const log = {
      info: (m: string) => logs.push(m),
      warn: (m: string) => logs.push(m),
      error: (m: string) => logs.push(m),
    };
    const recorded = await startGateway(
      {
        models: {
          sonnet: {
            backend: 'record',
            provider: 'anthropic',
            model: 'claude-sonnet-4-5',
            apiKeyEnv: 'KEY',
            baseUrl: upstream.url,
          },
        },
      },
      { env: { KEY: secret }, log },
    );
    const original = await converse(recorded.baseUrl, recorded.token);
    expect(original.text).toBe('answer #1');
    expect(original.calls).toEqual([{ a: 0, b: 1 }]);
    await recorded.gateway.close();
    const upstreamCalls = upstream.requests.length;

    await new Promise((resolve) => setTimeout(resolve, 1100)); // a different second in the prompt
    const replayed = await startGateway(
      { models: { sonnet: { backend: 'replay', from: recorded.runDir } } },
      { log },
    );
    expect(await converse(replayed.baseUrl, replayed.token)).toEqual(original);
    expect(upstream.requests.length).toBe(upstreamCalls);
    // Replayed exchanges meter their recorded counts, priced by the provider model id they name.
    const usage = replayed.gateway.takeUsage('trial-1');
    expect(usage.inputTokens).toBe(10 + 11 + 12);
    expect(usage.costUsd).toBeCloseTo(((10 + 11 + 12) * 3 + 3 * 5 * 15) / 1e6, 12);

    const client = new Anthropic({ baseURL: replayed.baseUrl, apiKey: replayed.token, maxRetries: 0 });
    await expect(
      client.messages.create({
        model: 'sonnet',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'never asked' }],
      }),
    ).rejects.toThrow(
      /no recorded answer for request [0-9a-f]+ of trial trial-1 \(model sonnet, 1 messages, last: \\"never asked\\"\)/,
    );
    await expect(
      client.messages.create({
        model: 'sonnet',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'second' }],
      }),
    ).rejects.toThrow(/its 1 recorded answer\(s\) are used up/);

    const stored = await filesUnder(recorded.runDir);
    expect(stored).toContain('answer #1');
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(recorded.token);
    expect(await filesUnder(replayed.runDir).catch(() => '')).not.toContain(secret);
    expect(logs.join('\n')).not.toContain(secret);
  });

  it("records another model of models: with 'wraps' (a scripted one), and replays it", async () => {
    const replies = [
      { toolCalls: [{ name: 'Write', input: { file_path: 'a.py', content: 'print(1)\n' } }] },
      { when: 'written', text: 'All done.' },
    ];
    const recorded = await startGateway(
      { models: { script: { backend: 'scripted', replies }, agent: { backend: 'record', wraps: 'script' } } },
      { model: 'agent' },
    );
    const ask = async (baseUrl: string, token: string) => {
      const client = new Anthropic({ baseURL: baseUrl, apiKey: token, maxRetries: 0 });
      const first = await client.messages
        .stream({ model: 'agent', max_tokens: 100, messages: [{ role: 'user', content: 'go' }] })
        .finalMessage();
      const call = first.content.find((block) => block.type === 'tool_use');
      const second = await client.messages.create({
        model: 'agent',
        max_tokens: 100,
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: first.content },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: call?.id ?? '', content: 'written' }],
          },
        ],
      });
      return [first.content, second.content];
    };
    const original = await ask(recorded.baseUrl, recorded.token);
    expect(original[1]).toEqual([{ type: 'text', text: 'All done.' }]);
    await recorded.gateway.close();
    const replayed = await startGateway({ models: { agent: { backend: 'replay', from: recorded.runDir } } });
    expect(await ask(replayed.baseUrl, replayed.token)).toEqual(original);
  });

  it("rejects 'wraps' mixed with provider settings, or naming no model", async () => {
    await expect(
      startGateway({ models: { agent: { backend: 'record', wraps: 'x', provider: 'anthropic' } } }),
    ).rejects.toThrow(/models\.agent\.provider: 'provider' and 'wraps' exclude each other/);
    await expect(
      startGateway({ models: { agent: { backend: 'record', wraps: 'nothing' } } }),
    ).rejects.toThrow(/models\.agent\.wraps: 'nothing' is not a model of models:/);
    await expect(startGateway({ models: { agent: { backend: 'record' } } })).rejects.toThrow(
      /'apiKeyEnv' is required \(or 'wraps' with a model name\)/,
    );
  });
});
