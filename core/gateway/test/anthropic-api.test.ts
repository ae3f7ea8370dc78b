import { createAnthropic } from '@ai-sdk/anthropic';
import Anthropic from '@anthropic-ai/sdk';
import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { add, startGateway } from './helpers.js';

const replies = [
  { text: 'Hello from the script.' },
  {
    text: 'Writing it.',
    toolCalls: [{ name: 'Write', input: { file_path: '/w/a.py', content: 'print("a")\n'.repeat(40) } }],
  },
  { when: 'wrote it', text: 'Done after the tool.' },
];

describe('Anthropic Messages API', () => {
  it('answers the official SDK without streaming, with text and tool_use blocks', async () => {
    const { baseUrl, token } = await startGateway({ models: { fake: { backend: 'scripted', replies } } });
    const client = new Anthropic({ baseURL: baseUrl, apiKey: token });
    const first = await client.messages.create({
      model: 'fake',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(first.content).toEqual([{ type: 'text', text: 'Hello from the script.' }]);
    expect(first.stop_reason).toBe('end_turn');
    expect(first.usage.input_tokens).toBeGreaterThan(0);
    const second = await client.messages.create({
      model: 'fake',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'go' }],
    });
    expect(second.stop_reason).toBe('tool_use');
    expect(second.content[1]).toMatchObject({
      type: 'tool_use',
      name: 'Write',
      input: { file_path: '/w/a.py' },
    });
  });

  it('streams events the official SDK accumulates into the same message', async () => {
    const { baseUrl, token } = await startGateway({ models: { fake: { backend: 'scripted', replies } } });
    const client = new Anthropic({ baseURL: baseUrl, apiKey: token });
    const types: string[] = [];
    const stream = client.messages.stream({
      model: 'fake',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    stream.on('streamEvent', (event) => types.push(event.type));
    const text = await stream.finalMessage();
    expect(text.content).toEqual([{ type: 'text', text: 'Hello from the script.' }]);
    const second = await client.messages
      .stream({ model: 'fake', max_tokens: 100, messages: [{ role: 'user', content: 'go' }] })
      .finalMessage();
    const call = second.content.find((block) => block.type === 'tool_use');
    expect(call?.input).toEqual({ file_path: '/w/a.py', content: 'print("a")\n'.repeat(40) });
    expect(second.stop_reason).toBe('tool_use');
    expect(types[0]).toBe('message_start');
    expect(types).toContain('content_block_delta');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
  });

  it('serves `when` replies on a matching tool result, and a clear error once the script is used up', async () => {
    const { baseUrl, token } = await startGateway({ models: { fake: { backend: 'scripted', replies } } });
    const client = new Anthropic({ baseURL: baseUrl, apiKey: token, maxRetries: 0 });
    const reply = await client.messages.create({
      model: 'fake',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Write', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'I wrote it' }] },
      ],
    });
    expect(reply.content).toEqual([{ type: 'text', text: 'Done after the tool.' }]);
    await client.messages.create({
      model: 'fake',
      max_tokens: 10,
      messages: [{ role: 'user', content: '1' }],
    });
    await client.messages.create({
      model: 'fake',
      max_tokens: 10,
      messages: [{ role: 'user', content: '2' }],
    });
    await expect(
      client.messages.create({ model: 'fake', max_tokens: 10, messages: [{ role: 'user', content: '3' }] }),
    ).rejects.toThrow(/has no reply left/);
  });

  it('drives the AI SDK anthropic provider through a tool loop, streaming and not', async () => {
    const { baseUrl, token } = await startGateway({
      models: {
        fake: {
          backend: 'scripted',
          replies: [
            { toolCalls: [{ name: 'add', input: { a: 2, b: 3 } }] },
            { when: '"sum":5', text: 'The sum is 5.' },
            { toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] },
            { when: '"sum":2', text: 'The sum is 2.' },
          ],
        },
      },
    });
    const anthropic = createAnthropic({ baseURL: `${baseUrl}/v1`, apiKey: token });
    const tools = { add };
    const { stepCountIs } = await import('ai');
    const result = await generateText({
      model: anthropic('fake'),
      tools,
      prompt: 'add',
      stopWhen: stepCountIs(4),
    });
    expect(result.text).toBe('The sum is 5.');
    expect(result.steps[0]?.toolCalls[0]?.input).toEqual({ a: 2, b: 3 });
    expect(result.totalUsage.inputTokens).toBeGreaterThan(0);
    const streamed = streamText({ model: anthropic('fake'), tools, prompt: 'add', stopWhen: stepCountIs(4) });
    expect(await streamed.text).toBe('The sum is 2.');
  });

  it('rejects an unknown token with 401 in the Anthropic error format, and a model not its own with 403', async () => {
    const { baseUrl, token } = await startGateway({ models: { fake: { backend: 'scripted', replies } } });
    const bad = await fetch(`${baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'sk-wrong', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake', max_tokens: 1, messages: [] }),
    });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const client = new Anthropic({ baseURL: baseUrl, apiKey: token, maxRetries: 0 });
    await expect(
      client.messages.create({ model: 'nope', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({
      status: 403,
      error: { type: 'error', error: { type: 'permission_error' } },
      message: expect.stringMatching(/model 'nope' is not available to this token.*'fake' only/),
    });
  });

  it('counts tokens and lists models', async () => {
    const { baseUrl, token } = await startGateway({ models: { fake: { backend: 'scripted', replies } } });
    const client = new Anthropic({ baseURL: baseUrl, apiKey: token });
    const count = await client.messages.countTokens({
      model: 'fake',
      messages: [{ role: 'user', content: 'x'.repeat(400) }],
    });
    expect(count.input_tokens).toBe(100);
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['fake']);
  });
});
