import { anthropicErrorType, badRequest } from '../errors.js';
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

const stopReasons: Record<StopReason, string> = {
  end: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  refusal: 'refusal',
};

function toStopReason(value: unknown): StopReason {
  if (value === 'tool_use') return 'tool_use';
  if (value === 'max_tokens' || value === 'model_context_window_exceeded') return 'max_tokens';
  if (value === 'refusal') return 'refusal';
  return 'end';
}

function parseBlocks(content: unknown): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const parts: Part[] = [];
  for (const raw of asArray(content)) {
    const block = asRecord(raw);
    if (block.type === 'text') parts.push({ type: 'text', text: asString(block.text) });
    else if (block.type === 'tool_use' || block.type === 'server_tool_use')
      parts.push({
        type: 'tool_call',
        id: asString(block.id),
        name: asString(block.name),
        input: block.input ?? {},
      });
    else if (block.type === 'tool_result')
      parts.push({
        type: 'tool_result',
        callId: asString(block.tool_use_id),
        content: contentText(block.content),
        isError: block.is_error === true,
      });
    else if (block.type === 'image' || block.type === 'document')
      parts.push({ type: 'text', text: `[${block.type}]` });
    // thinking and redacted_thinking blocks carry nothing a backend here acts on.
  }
  return parts;
}

function usageJson(usage: TokenCounts): Json {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
  };
}

function readUsage(value: unknown): TokenCounts {
  const u = asRecord(value);
  return {
    inputTokens: asNumber(u.input_tokens),
    outputTokens: asNumber(u.output_tokens),
    cacheReadTokens: asNumber(u.cache_read_input_tokens),
    cacheWriteTokens: asNumber(u.cache_creation_input_tokens),
  };
}

/** Anthropic tool inputs are objects; a free-form input travels as `{input}`. */
function toolInput(input: unknown): Json {
  return input && typeof input === 'object' && !Array.isArray(input) ? (input as Json) : { input };
}

/** The arguments of a free-form tool offered through an API that only has function tools. */
export const freeFormSchema = {
  type: 'object',
  properties: { input: { type: 'string' } },
  required: ['input'],
};

function contentBlocks(reply: ModelReply): Json[] {
  return reply.content.map((part) =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : { type: 'tool_use', id: part.id, name: part.name, input: toolInput(part.input) },
  );
}

export const anthropicCodec: ApiCodec = {
  api: 'anthropic',

  parseRequest(body, query): ModelRequest {
    if (typeof body.model !== 'string' || body.model === '')
      throw badRequest('model: a model name is required');
    if (!Array.isArray(body.messages)) throw badRequest('messages: an array of messages is required');
    const system = [contentText(body.system)].filter(Boolean);
    const messages: ModelMessage[] = [];
    body.messages.forEach((raw, index) => {
      const message = asRecord(raw);
      // Claude Code puts system messages between turns (environment, deferred tools).
      if (message.role === 'system') system.push(contentText(message.content));
      else if (message.role === 'user' || message.role === 'assistant')
        messages.push({ role: message.role, content: parseBlocks(message.content) });
      else throw badRequest(`messages.${index}.role: expected 'user', 'assistant' or 'system'`);
    });
    const tools: ToolSpec[] = asArray(body.tools)
      .map(asRecord)
      .filter((tool) => typeof tool.name === 'string' && tool.input_schema !== undefined)
      .map((tool) => ({
        name: tool.name as string,
        description: asString(tool.description) || undefined,
        inputSchema: asRecord(tool.input_schema),
        kind: 'function',
      }));
    return {
      api: 'anthropic',
      model: body.model,
      system: system.join('\n\n'),
      messages,
      tools,
      stream: body.stream === true,
      maxTokens: typeof body.max_tokens === 'number' ? body.max_tokens : undefined,
      body,
      query,
    };
  },

  renderReply(reply) {
    return {
      id: newId('msg_'),
      type: 'message',
      role: 'assistant',
      model: reply.model,
      content: contentBlocks(reply),
      stop_reason: stopReasons[reply.stopReason],
      stop_sequence: null,
      usage: usageJson(reply.usage),
    };
  },

  renderStream(reply) {
    const frames: string[] = [];
    const emit = (data: Json) => frames.push(sseFrame(data, data.type as string));
    emit({
      type: 'message_start',
      message: {
        id: newId('msg_'),
        type: 'message',
        role: 'assistant',
        model: reply.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usageJson(reply.usage), output_tokens: Math.min(1, reply.usage.outputTokens) },
      },
    });
    reply.content.forEach((part, index) => {
      if (part.type === 'text') {
        emit({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        for (const text of chunks(part.text))
          emit({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
      } else {
        emit({
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: part.id, name: part.name, input: {} },
        });
        for (const partial_json of chunks(JSON.stringify(toolInput(part.input)), 512))
          emit({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
      }
      emit({ type: 'content_block_stop', index });
    });
    emit({
      type: 'message_delta',
      delta: { stop_reason: stopReasons[reply.stopReason], stop_sequence: null },
      usage: usageJson(reply.usage),
    });
    emit({ type: 'message_stop' });
    return frames;
  },

  renderRequest(request, model) {
    const blocks = (message: ModelMessage): Json[] =>
      message.content
        .filter((part) => part.type !== 'text' || part.text !== '')
        .map((part) =>
          part.type === 'text'
            ? { type: 'text', text: part.text }
            : part.type === 'tool_call'
              ? { type: 'tool_use', id: part.id, name: part.name, input: toolInput(part.input) }
              : {
                  type: 'tool_result',
                  tool_use_id: part.callId,
                  content: part.content,
                  is_error: part.isError === true,
                },
        );
    return {
      model,
      max_tokens: request.maxTokens ?? 8192,
      ...(request.system ? { system: request.system } : {}),
      messages: request.messages.map((message) => ({ role: message.role, content: blocks(message) })),
      ...(request.tools.length > 0
        ? {
            tools: request.tools.map((tool) => ({
              name: tool.name,
              ...(tool.description ? { description: tool.description } : {}),
              input_schema: tool.inputSchema ?? freeFormSchema,
            })),
          }
        : {}),
    };
  },

  renderError(status, message) {
    return { type: 'error', error: { type: anthropicErrorType(status), message } };
  },

  parseReply(text, stream): ModelReply {
    if (!stream) {
      const body = parseJsonObject(text, 'Anthropic reply');
      return {
        model: asString(body.model),
        content: parseBlocks(body.content).filter(
          (part) => part.type !== 'tool_result',
        ) as ModelReply['content'],
        stopReason: toStopReason(body.stop_reason),
        usage: readUsage(body.usage),
      };
    }
    const reply: ModelReply = { model: '', content: [], stopReason: 'end', usage: readUsage({}) };
    const json: string[] = [];
    for (const { data } of parseSse(text)) {
      const event = parseJsonObject(data, 'Anthropic stream event');
      if (event.type === 'message_start') {
        const message = asRecord(event.message);
        reply.model = asString(message.model);
        reply.usage = readUsage(message.usage);
      } else if (event.type === 'content_block_start') {
        const block = asRecord(event.content_block);
        const index = asNumber(event.index);
        if (block.type === 'text') reply.content[index] = { type: 'text', text: asString(block.text) };
        else if (block.type === 'tool_use') {
          reply.content[index] = {
            type: 'tool_call',
            id: asString(block.id),
            name: asString(block.name),
            input: {},
          };
          json[index] = '';
        }
      } else if (event.type === 'content_block_delta') {
        const delta = asRecord(event.delta);
        const index = asNumber(event.index);
        const part = reply.content[index];
        if (delta.type === 'text_delta' && part?.type === 'text') part.text += asString(delta.text);
        else if (delta.type === 'input_json_delta')
          json[index] = (json[index] ?? '') + asString(delta.partial_json);
      } else if (event.type === 'content_block_stop') {
        const index = asNumber(event.index);
        const part = reply.content[index];
        if (part?.type === 'tool_call') part.input = parseArguments(json[index] ?? '');
      } else if (event.type === 'message_delta') {
        reply.stopReason = toStopReason(asRecord(event.delta).stop_reason);
        const usage = readUsage(event.usage);
        // message_delta carries cumulative counts; input counts appear there only on some models.
        reply.usage = {
          inputTokens: usage.inputTokens || reply.usage.inputTokens,
          outputTokens: usage.outputTokens || reply.usage.outputTokens,
          cacheReadTokens: usage.cacheReadTokens || reply.usage.cacheReadTokens,
          cacheWriteTokens: usage.cacheWriteTokens || reply.usage.cacheWriteTokens,
        };
      }
    }
    reply.content = reply.content.filter(Boolean);
    return reply;
  },
};
