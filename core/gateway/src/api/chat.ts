import { badRequest, openaiErrorType } from '../errors.js';
import type {
  ModelMessage,
  ModelReply,
  ModelRequest,
  Part,
  StopReason,
  TokenCounts,
  ToolSpec,
} from '../model.js';
import { chunks, newId, parseJsonObject, parseSse, sseFrame } from '../sse.js';
import { freeFormSchema } from './anthropic.js';
import {
  type ApiCodec,
  asArray,
  asNumber,
  asRecord,
  asString,
  contentText,
  type Json,
  parseArguments,
} from './codec.js';

const finishReasons: Record<StopReason, string> = {
  end: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'content_filter',
};

function toStopReason(value: unknown): StopReason {
  if (value === 'tool_calls' || value === 'function_call') return 'tool_use';
  if (value === 'length') return 'max_tokens';
  if (value === 'content_filter') return 'refusal';
  return 'end';
}

function usageJson(usage: TokenCounts): Json {
  const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.outputTokens,
    total_tokens: prompt + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
  };
}

function readUsage(value: unknown): TokenCounts {
  const u = asRecord(value);
  const cached = asNumber(asRecord(u.prompt_tokens_details).cached_tokens);
  return {
    inputTokens: Math.max(0, asNumber(u.prompt_tokens) - cached),
    outputTokens: asNumber(u.completion_tokens),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}

function parseMessages(raw: unknown[], system: string[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  const push = (role: ModelMessage['role'], parts: Part[]) => {
    const last = messages.at(-1);
    if (last && last.role === role) last.content.push(...parts);
    else messages.push({ role, content: parts });
  };
  raw.forEach((value, index) => {
    const message = asRecord(value);
    const text = contentText(message.content);
    if (message.role === 'system' || message.role === 'developer') system.push(text);
    else if (message.role === 'user') push('user', [{ type: 'text', text }]);
    else if (message.role === 'tool')
      push('user', [{ type: 'tool_result', callId: asString(message.tool_call_id), content: text }]);
    else if (message.role === 'assistant') {
      const parts: Part[] = text ? [{ type: 'text', text }] : [];
      for (const call of asArray(message.tool_calls).map(asRecord)) {
        const fn = asRecord(call.function);
        parts.push({
          type: 'tool_call',
          id: asString(call.id),
          name: asString(fn.name),
          input: parseArguments(asString(fn.arguments)),
        });
      }
      push('assistant', parts);
    } else throw badRequest(`messages.${index}.role: unknown role '${String(message.role)}'`);
  });
  return messages;
}

function toolCallJson(
  part: Extract<ModelReply['content'][number], { type: 'tool_call' }>,
  index: number,
): Json {
  return {
    index,
    id: part.id,
    type: 'function',
    function: {
      name: part.name,
      arguments: typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {}),
    },
  };
}

export const chatCodec: ApiCodec = {
  api: 'chat',

  parseRequest(body, query): ModelRequest {
    if (typeof body.model !== 'string' || body.model === '')
      throw badRequest('model: a model name is required');
    if (!Array.isArray(body.messages)) throw badRequest('messages: an array of messages is required');
    const system: string[] = [];
    const messages = parseMessages(body.messages, system);
    const tools: ToolSpec[] = asArray(body.tools)
      .map(asRecord)
      .filter((tool) => tool.type === 'function')
      .map((tool) => {
        const fn = asRecord(tool.function);
        return {
          name: asString(fn.name),
          description: asString(fn.description) || undefined,
          inputSchema: asRecord(fn.parameters),
          kind: 'function',
        };
      });
    const maxTokens = body.max_completion_tokens ?? body.max_tokens;
    return {
      api: 'chat',
      model: body.model,
      system: system.join('\n\n'),
      messages,
      tools,
      stream: body.stream === true,
      maxTokens: typeof maxTokens === 'number' ? maxTokens : undefined,
      body,
      query,
    };
  },

  renderReply(reply) {
    const text = reply.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    const calls = reply.content.filter((part) => part.type === 'tool_call');
    return {
      id: newId('chatcmpl-'),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: reply.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: text || (calls.length > 0 ? null : ''),
            refusal: null,
            ...(calls.length > 0 ? { tool_calls: calls.map((call, i) => toolCallJson(call, i)) } : {}),
          },
          logprobs: null,
          finish_reason: finishReasons[reply.stopReason],
        },
      ],
      usage: usageJson(reply.usage),
    };
  },

  renderStream(reply, request) {
    const id = newId('chatcmpl-');
    const created = Math.floor(Date.now() / 1000);
    const frames: string[] = [];
    const frame = (choices: Json[], extra: Json = {}) =>
      frames.push(
        sseFrame({ id, object: 'chat.completion.chunk', created, model: reply.model, choices, ...extra }),
      );
    const chunk = (delta: Json, finish: string | null = null) =>
      frame([{ index: 0, delta, logprobs: null, finish_reason: finish }]);
    chunk({ role: 'assistant', content: '' });
    let callIndex = 0;
    for (const part of reply.content) {
      if (part.type === 'text') {
        for (const content of chunks(part.text)) chunk({ content });
        continue;
      }
      const call = toolCallJson(part, callIndex++);
      const fn = call.function as Json;
      chunk({ tool_calls: [{ ...call, function: { name: fn.name, arguments: '' } }] });
      for (const args of chunks(fn.arguments as string, 512))
        chunk({ tool_calls: [{ index: call.index, function: { arguments: args } }] });
    }
    chunk({}, finishReasons[reply.stopReason]);
    if (asRecord(request.body.stream_options).include_usage === true)
      frame([], { usage: usageJson(reply.usage) });
    frames.push(sseFrame('[DONE]'));
    return frames;
  },

  renderRequest(request, model) {
    const messages: Json[] = request.system ? [{ role: 'system', content: request.system }] : [];
    for (const message of request.messages) {
      const text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      if (message.role === 'assistant') {
        const calls = message.content.filter((part) => part.type === 'tool_call');
        messages.push({
          role: 'assistant',
          content: text || null,
          ...(calls.length > 0
            ? { tool_calls: calls.map((call, i) => toolCallJson(call, i)).map(({ index, ...call }) => call) }
            : {}),
        });
        continue;
      }
      for (const part of message.content)
        if (part.type === 'tool_result')
          messages.push({ role: 'tool', tool_call_id: part.callId, content: part.content });
      if (text) messages.push({ role: 'user', content: text });
    }
    return {
      model,
      messages,
      ...(request.maxTokens ? { max_completion_tokens: request.maxTokens } : {}),
      ...(request.tools.length > 0
        ? {
            tools: request.tools.map((tool) => ({
              type: 'function',
              function: {
                name: tool.name,
                ...(tool.description ? { description: tool.description } : {}),
                parameters: tool.inputSchema ?? freeFormSchema,
              },
            })),
          }
        : {}),
    };
  },

  renderError(status, message) {
    return { error: { message, type: openaiErrorType(status), param: null, code: null } };
  },

  parseReply(text, stream): ModelReply {
    if (!stream) {
      const body = parseJsonObject(text, 'Chat Completions reply');
      const choice = asRecord(asArray(body.choices)[0]);
      const message = asRecord(choice.message);
      const parsed = parseMessages([{ ...message, role: 'assistant' }], []);
      return {
        model: asString(body.model),
        content: (parsed[0]?.content ?? []) as ModelReply['content'],
        stopReason: toStopReason(choice.finish_reason),
        usage: readUsage(body.usage),
      };
    }
    const reply: ModelReply = { model: '', content: [], stopReason: 'end', usage: readUsage({}) };
    let text_ = '';
    const calls: { id: string; name: string; args: string }[] = [];
    for (const { data } of parseSse(text)) {
      if (data === '[DONE]') continue;
      const event = parseJsonObject(data, 'Chat Completions chunk');
      reply.model ||= asString(event.model);
      if (event.usage) reply.usage = readUsage(event.usage);
      const choice = asRecord(asArray(event.choices)[0]);
      const delta = asRecord(choice.delta);
      text_ += asString(delta.content);
      for (const raw of asArray(delta.tool_calls)) {
        const call = asRecord(raw);
        const index = asNumber(call.index);
        const fn = asRecord(call.function);
        calls[index] ??= { id: '', name: '', args: '' };
        const entry = calls[index];
        if (call.id) entry.id = asString(call.id);
        if (fn.name) entry.name = asString(fn.name);
        entry.args += asString(fn.arguments);
      }
      if (choice.finish_reason) reply.stopReason = toStopReason(choice.finish_reason);
    }
    if (text_) reply.content.push({ type: 'text', text: text_ });
    for (const call of calls.filter(Boolean))
      reply.content.push({
        type: 'tool_call',
        id: call.id,
        name: call.name,
        input: parseArguments(call.args),
      });
    return reply;
  },
};
