import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText } from 'ai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { add, startGateway } from './helpers.js';

const patch = '*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch\n';
const replies = [
  { text: 'Plain answer.' },
  {
    text: 'Running it.',
    toolCalls: [
      { name: 'exec_command', input: { cmd: 'ls -la' } },
      { name: 'apply_patch', input: patch },
    ],
  },
];

const tools: OpenAI.Responses.Tool[] = [
  {
    type: 'function',
    name: 'exec_command',
    strict: false,
    parameters: { type: 'object', properties: { cmd: { type: 'string' } } },
  },
  { type: 'custom', name: 'apply_patch', description: 'Apply a patch' } as OpenAI.Responses.Tool,
];

const addReplies = [
  { toolCalls: [{ name: 'add', input: { a: 20, b: 22 } }] },
  { when: '42', text: 'It is 42.' },
];

describe('OpenAI Responses API', () => {
  it('streams events the official SDK accumulates: text, function calls and free-form (custom) tool calls', async () => {
    const { baseUrl, token } = await startGateway({ models: { 'gpt-x': { backend: 'scripted', replies } } });
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: token });
    const events: string[] = [];
    const stream = client.responses.stream({ model: 'gpt-x', input: 'hi', tools });
    stream.on('event', (event) => events.push(event.type));
    const first = await stream.finalResponse();
    expect(first.output).toMatchObject([
      { type: 'message', content: [{ type: 'output_text', text: 'Plain answer.' }] },
    ]);
    expect(first.status).toBe('completed');
    expect(first.usage?.output_tokens).toBeGreaterThan(0);
    expect(events[0]).toBe('response.created');
    expect(events).toContain('response.output_text.delta');
    expect(events.at(-1)).toBe('response.completed');

    const second = await client.responses.stream({ model: 'gpt-x', input: 'go', tools }).finalResponse();
    const [message, call, custom] = second.output;
    expect(message).toMatchObject({ type: 'message' });
    expect(call).toMatchObject({
      type: 'function_call',
      name: 'exec_command',
      arguments: '{"cmd":"ls -la"}',
    });
    expect(custom).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch', input: patch });
  });

  it('answers without streaming', async () => {
    const { baseUrl, token } = await startGateway({ models: { 'gpt-x': { backend: 'scripted', replies } } });
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: token });
    const response = await client.responses.create({ model: 'gpt-x', input: 'hi' });
    expect(response.output_text).toBe('Plain answer.');
  });

  it('drives the AI SDK openai responses provider through a tool loop, streaming and not', async () => {
    const { baseUrl, token } = await startGateway({
      models: { 'gpt-x': { backend: 'scripted', replies: [...addReplies, addReplies[0]!] } },
    });
    const openai = createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey: token });
    const result = await generateText({
      model: openai.responses('gpt-x'),
      tools: { add },
      prompt: 'add',
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('It is 42.');
    expect(result.steps[0]?.toolCalls[0]?.input).toEqual({ a: 20, b: 22 });
    const streamed = streamText({
      model: openai.responses('gpt-x'),
      tools: { add },
      prompt: 'add',
      stopWhen: stepCountIs(3),
    });
    expect(await streamed.text).toBe('It is 42.');
    expect((await streamed.totalUsage).outputTokens).toBeGreaterThan(0);
  });

  it('rejects an unknown bearer token with 401 in the OpenAI error format', async () => {
    const { baseUrl } = await startGateway({ models: { 'gpt-x': { backend: 'scripted', replies } } });
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'sk-not-a-gateway-token', maxRetries: 0 });
    await expect(client.responses.create({ model: 'gpt-x', input: 'x' })).rejects.toMatchObject({
      status: 401,
      type: 'authentication_error',
    });
  });
});

describe('Chat Completions API', () => {
  it('answers the official SDK with tool_calls, streaming and not', async () => {
    const { baseUrl, token } = await startGateway({
      models: { 'gpt-x': { backend: 'scripted', replies: [...replies, ...replies] } },
    });
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: token });
    const plain = await client.chat.completions.create({
      model: 'gpt-x',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(plain.choices[0]?.message.content).toBe('Plain answer.');
    expect(plain.choices[0]?.finish_reason).toBe('stop');
    const calls = await client.chat.completions.create({
      model: 'gpt-x',
      messages: [{ role: 'user', content: 'go' }],
    });
    expect(calls.choices[0]?.finish_reason).toBe('tool_calls');
    expect(calls.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      type: 'function',
      function: { name: 'exec_command', arguments: '{"cmd":"ls -la"}' },
    });

    const streamed = await client.chat.completions
      .stream({
        model: 'gpt-x',
        messages: [{ role: 'user', content: 'hi' }],
        stream_options: { include_usage: true },
      })
      .finalChatCompletion();
    expect(streamed.choices[0]?.message.content).toBe('Plain answer.');
    const streamedCalls = await client.chat.completions
      .stream({ model: 'gpt-x', messages: [{ role: 'user', content: 'go' }] })
      .finalChatCompletion();
    expect(
      streamedCalls.choices[0]?.message.tool_calls?.map((c) => c.type === 'function' && c.function.name),
    ).toEqual(['exec_command', 'apply_patch']);
    expect(streamedCalls.choices[0]?.message.tool_calls?.[1]).toMatchObject({
      function: { arguments: patch },
    });
  });

  it('drives the AI SDK openai chat provider through a tool loop, streaming and not', async () => {
    const { baseUrl, token } = await startGateway({
      models: { 'gpt-x': { backend: 'scripted', replies: [...addReplies, addReplies[0]!] } },
    });
    const openai = createOpenAI({ baseURL: `${baseUrl}/v1`, apiKey: token });
    const result = await generateText({
      model: openai.chat('gpt-x'),
      tools: { add },
      prompt: 'add',
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('It is 42.');
    const streamed = streamText({
      model: openai.chat('gpt-x'),
      tools: { add },
      prompt: 'add',
      stopWhen: stepCountIs(3),
    });
    expect(await streamed.text).toBe('It is 42.');
  });
});
