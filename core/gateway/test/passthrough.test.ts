import Anthropic from '@anthropic-ai/sdk';
import type { Logger } from '@longhaul/core';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { startGateway } from './helpers.js';
import {
  anthropicMessage,
  anthropicStream,
  fakeUpstream,
  sendError,
  sendJson,
  sendStream,
} from './upstream.js';

const secret = 'sk-ant-test-0123456789-SECRET';

function sonnet(url: string, extra: Record<string, unknown> = {}) {
  return {
    backend: 'passthrough' as const,
    provider: 'anthropic' as const,
    model: 'claude-sonnet-4-5',
    apiKeyEnv: 'TEST_ANTHROPIC_KEY',
    baseUrl: url,
    backoffMs: 1,
    ...extra,
  };
}

/** A gateway whose model 'sonnet' passes through to `url` with the test key. */
function startSonnet(url: string, extra: Record<string, unknown> = {}, log?: Logger) {
  return startGateway(
    { models: { sonnet: sonnet(url, extra) } },
    { env: { TEST_ANTHROPIC_KEY: secret }, log },
  );
}

function gpt5(url: string) {
  return {
    backend: 'passthrough' as const,
    provider: 'openai' as const,
    model: 'gpt-5',
    apiKeyEnv: 'OAI',
    baseUrl: url,
  };
}

describe('passthrough backend', () => {
  it('forwards a Claude Code-shaped request with the provider key, model id and beta headers, and meters cost', async () => {
    const upstream = await fakeUpstream((_req, res) =>
      sendStream(res, anthropicStream('Hello from upstream.')),
    );
    const { gateway, baseUrl, token } = await startSonnet(upstream.url);
    // What Claude Code sends: the beta query flag and an anthropic-beta header, streaming.
    const client = new Anthropic({ baseURL: baseUrl, apiKey: token });
    const message = await client.messages
      .stream(
        { model: 'sonnet', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] },
        { query: { beta: 'true' }, headers: { 'anthropic-beta': 'interleaved-thinking-2025-05-14' } },
      )
      .finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: 'Hello from upstream.' }]);
    const seen = upstream.requests[0]!;
    expect(seen.path).toBe('/v1/messages?beta=true');
    expect(seen.headers['x-api-key']).toBe(secret);
    expect(seen.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
    expect(seen.body.model).toBe('claude-sonnet-4-5');
    expect(JSON.stringify(seen)).not.toContain(token);
    const usage = gateway.takeUsage('trial-1');
    expect(usage).toMatchObject({
      inputTokens: 1000,
      outputTokens: 500,
      cacheReadTokens: 3000,
      cacheWriteTokens: 200,
    });
    // claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million tokens.
    expect(usage.costUsd).toBeCloseTo((1000 * 3 + 500 * 15 + 3000 * 0.3 + 200 * 3.75) / 1e6, 10);
    expect(gateway.takeUsage('trial-1').costUsd).toBe(0);
  });

  it('retries a 429 and a 503 with backoff, then answers', async () => {
    const upstream = await fakeUpstream((_req, res, index) => {
      if (index === 0) return sendError(res, 429, 'slow down', { 'retry-after': '0' });
      if (index === 1) return sendError(res, 503, 'overloaded');
      sendJson(res, anthropicMessage('third time lucky', 5, 3));
    });
    const { gateway, baseUrl, token } = await startSonnet(upstream.url);
    const client = new Anthropic({ baseURL: baseUrl, apiKey: token, maxRetries: 0 });
    const message = await client.messages.create({
      model: 'sonnet',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'x' }],
      stream: false,
    });
    expect(upstream.requests).toHaveLength(3);
    expect(message.content).toEqual([{ type: 'text', text: 'third time lucky' }]);
    expect(gateway.takeErrors('trial-1')).toEqual([]);
  });

  it('gives up on an attempt that runs past timeoutMs and retries it', async () => {
    const upstream = await fakeUpstream((_req, res, index) => {
      if (index === 0) return; // never answers
      sendJson(res, anthropicMessage('second attempt', 1, 1));
    });
    const { gateway, baseUrl, token } = await startSonnet(upstream.url, { timeoutMs: 200 });
    const client = new Anthropic({ baseURL: baseUrl, apiKey: token, maxRetries: 0 });
    const message = await client.messages.create({
      model: 'sonnet',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'second attempt' }]);
    expect(upstream.requests).toHaveLength(2);
    expect(gateway.takeErrors('trial-1')).toEqual([]);
  });

  it('ends a stream the provider breaks off with an error event the SDK raises, classified server', async () => {
    const upstream = await fakeUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(anthropicStream('partial').split('event: content_block_delta')[0]);
      setTimeout(() => res.destroy(), 20);
    });
    const { gateway, baseUrl, token } = await startSonnet(upstream.url);
    const client = new Anthropic({ baseURL: baseUrl, apiKey: token, maxRetries: 0 });
    await expect(
      client.messages
        .stream({ model: 'sonnet', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
        .finalMessage(),
    ).rejects.toThrow(/broke off/);
    expect(gateway.takeErrors('trial-1').map((error) => error.errorClass)).toEqual(['server']);
  });

  it('classifies what the provider answers once retries are spent', async () => {
    const cases: [number, string, string][] = [
      [401, `invalid x-api-key ${secret}`, 'auth'],
      [429, 'rate limited', 'rate_limit'],
      [400, 'prompt is too long: 210000 tokens > 200000 maximum', 'context_overflow'],
      [500, 'internal', 'server'],
    ];
    for (const [status, text, errorClass] of cases) {
      const upstream = await fakeUpstream((_req, res) => sendError(res, status, text));
      const logs: string[] = [];
      const log = {
        info: (m: string) => logs.push(m),
        warn: (m: string) => logs.push(m),
        error: (m: string) => logs.push(m),
      };
      const { gateway, baseUrl, token } = await startSonnet(upstream.url, { retries: 2 }, log);
      const client = new Anthropic({ baseURL: baseUrl, apiKey: token, maxRetries: 0 });
      const failure = await client.messages
        .create({ model: 'sonnet', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
        .catch((error: unknown) => error as InstanceType<typeof Anthropic.APIError>);
      expect(failure).toBeInstanceOf(Anthropic.APIError);
      expect((failure as InstanceType<typeof Anthropic.APIError>).status).toBe(status);
      const retried = status === 429 || status >= 500;
      expect(upstream.requests).toHaveLength(retried ? 3 : 1);
      const [error] = gateway.takeErrors('trial-1');
      expect(error?.errorClass).toBe(errorClass);
      expect(`${error?.message} ${logs.join('\n')} ${String(failure)}`).not.toContain(secret);
    }
  });

  it('forwards OpenAI Responses requests with a bearer key', async () => {
    const completed = {
      type: 'response.completed',
      sequence_number: 1,
      response: {
        id: 'resp_1',
        object: 'response',
        created_at: 1,
        status: 'completed',
        model: 'gpt-5',
        output: [
          {
            type: 'message',
            id: 'msg_1',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'hi there', annotations: [] }],
          },
        ],
        usage: {
          input_tokens: 100,
          input_tokens_details: { cached_tokens: 40 },
          output_tokens: 10,
          total_tokens: 110,
        },
      },
    };
    const created = {
      type: 'response.created',
      sequence_number: 0,
      response: { ...completed.response, status: 'in_progress', output: [], usage: null },
    };
    const frames = [created, completed].map(
      (event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`,
    );
    const upstream = await fakeUpstream((_req, res) => sendStream(res, frames.join('')));
    const { gateway, baseUrl, token } = await startGateway(
      {
        models: {
          gpt: gpt5(upstream.url),
        },
      },
      { env: { OAI: 'sk-openai-SECRET' } },
    );
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: token, maxRetries: 0 });
    const response = await client.responses.stream({ model: 'gpt', input: 'hello' }).finalResponse();
    expect(response.output[0]).toMatchObject({ type: 'message', content: [{ text: 'hi there' }] });
    expect(upstream.requests[0]?.headers.authorization).toBe('Bearer sk-openai-SECRET');
    expect(gateway.takeUsage('trial-1')).toMatchObject({
      inputTokens: 60,
      cacheReadTokens: 40,
      outputTokens: 10,
    });
  });

  it('translates a request in an API the provider does not speak, tool calls included', async () => {
    const chatReply = {
      id: 'c1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-5',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'Write', arguments: '{"file_path":"/a","content":"x"}' },
              },
            ],
          },
        },
      ],
      usage: { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37 },
    };
    const openaiUpstream = await fakeUpstream((_req, res) => {
      sendJson(res, chatReply);
    });
    const anthropicUpstream = await fakeUpstream((req, res) => {
      if (req.path.endsWith('/count_tokens')) {
        return sendJson(res, { input_tokens: 1234 });
      }
      sendJson(res, anthropicMessage('from claude', 11, 2));
    });
    const { gateway, baseUrl, token } = await startGateway(
      {
        models: {
          gpt: gpt5(openaiUpstream.url),
          sonnet: sonnet(anthropicUpstream.url),
        },
      },
      { env: { OAI: 'sk-openai-SECRET', TEST_ANTHROPIC_KEY: secret } },
    );
    const sonnetToken = (await gateway.endpoint('trial-1', '127.0.0.1', 'sonnet')).token;
    // Messages API → an OpenAI model (through Chat Completions), streaming back to the caller.
    const anthropic = new Anthropic({ baseURL: baseUrl, apiKey: token, maxRetries: 0 });
    const message = await anthropic.messages
      .stream({
        model: 'gpt',
        max_tokens: 100,
        system: 'be brief',
        tools: [
          { name: 'Write', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } },
        ],
        messages: [
          { role: 'user', content: 'write' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_0', name: 'Write', input: { file_path: '/b' } }],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_0', content: 'done' }] },
        ],
      })
      .finalMessage();
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'Write', input: { file_path: '/a', content: 'x' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    const sent = openaiUpstream.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.body).toMatchObject({
      model: 'gpt-5',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'write' },
        {
          role: 'assistant',
          tool_calls: [{ id: 'toolu_0', function: { name: 'Write', arguments: '{"file_path":"/b"}' } }],
        },
        { role: 'tool', tool_call_id: 'toolu_0', content: 'done' },
      ],
      tools: [{ type: 'function', function: { name: 'Write' } }],
    });

    // Chat Completions → an Anthropic model; count_tokens is answered by Anthropic itself.
    const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: sonnetToken, maxRetries: 0 });
    const chat = await openai.chat.completions.create({
      model: 'sonnet',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(chat.choices[0]?.message.content).toBe('from claude');
    expect(anthropicUpstream.requests[0]?.body).toMatchObject({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user' }],
    });
    const counted = await new Anthropic({ baseURL: baseUrl, apiKey: sonnetToken }).messages.countTokens({
      model: 'sonnet',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(counted.input_tokens).toBe(1234);
  });

  it('refuses to start without the provider key in the host environment, naming the variable', async () => {
    await expect(
      startGateway({ models: { sonnet: sonnet('http://127.0.0.1:9') } }, { env: {} }),
    ).rejects.toThrow(/TEST_ANTHROPIC_KEY is not set/);
  });
});
