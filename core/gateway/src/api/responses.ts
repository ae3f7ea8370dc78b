import { badRequest, openaiErrorType } from '../errors.js';
import type {
  ModelMessage,
  ModelReply,
  ModelRequest,
  Part,
  TokenCounts,
  ToolCallPart,
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

/** Appends a part to the conversation, merging consecutive items of one role into one message. */
function push(messages: ModelMessage[], role: ModelMessage['role'], part: Part): void {
  const last = messages.at(-1);
  if (last && last.role === role) last.content.push(part);
  else messages.push({ role, content: [part] });
}

function parseInput(input: unknown, system: string[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  if (typeof input === 'string') return [{ role: 'user', content: [{ type: 'text', text: input }] }];
  for (const raw of asArray(input)) {
    const item = asRecord(raw);
    const type = item.type ?? 'message';
    if (type === 'message') {
      const text = contentText(item.content);
      if (item.role === 'system' || item.role === 'developer') system.push(text);
      else push(messages, item.role === 'assistant' ? 'assistant' : 'user', { type: 'text', text });
    } else if (type === 'function_call') {
      push(messages, 'assistant', {
        type: 'tool_call',
        id: asString(item.call_id),
        name: asString(item.name),
        input: parseArguments(asString(item.arguments)),
      });
    } else if (type === 'custom_tool_call') {
      push(messages, 'assistant', {
        type: 'tool_call',
        id: asString(item.call_id),
        name: asString(item.name),
        input: asString(item.input),
      });
    } else if (type === 'local_shell_call') {
      push(messages, 'assistant', {
        type: 'tool_call',
        id: asString(item.call_id),
        name: 'local_shell',
        input: asRecord(item.action),
      });
    } else if (
      type === 'function_call_output' ||
      type === 'custom_tool_call_output' ||
      type === 'local_shell_call_output'
    ) {
      push(messages, 'user', {
        type: 'tool_result',
        callId: asString(item.call_id),
        content: contentText(item.output),
      });
    }
    // reasoning items and server-side tool items carry nothing a backend here acts on.
  }
  return messages;
}

function parseTools(tools: unknown): ToolSpec[] {
  const specs: ToolSpec[] = [];
  for (const raw of asArray(tools)) {
    const tool = asRecord(raw);
    if (tool.type === 'function' && typeof tool.name === 'string')
      specs.push({
        name: tool.name,
        description: asString(tool.description) || undefined,
        inputSchema: asRecord(tool.parameters),
        kind: 'function',
      });
    else if (tool.type === 'custom' && typeof tool.name === 'string')
      specs.push({ name: tool.name, description: asString(tool.description) || undefined, kind: 'custom' });
  }
  return specs;
}

function usageJson(usage: TokenCounts): Json {
  const input = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + usage.outputTokens,
  };
}

function readUsage(value: unknown): TokenCounts {
  const u = asRecord(value);
  const cached = asNumber(asRecord(u.input_tokens_details).cached_tokens);
  return {
    inputTokens: Math.max(0, asNumber(u.input_tokens) - cached),
    outputTokens: asNumber(u.output_tokens),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}

function isCustom(request: ModelRequest, name: string): boolean {
  return request.tools.some((tool) => tool.name === name && tool.kind === 'custom');
}

/** The finished output item for a reply part, as `response.output_item.done` and the final response carry it. */
function outputItem(part: ModelReply['content'][number], request: ModelRequest, id: string): Json {
  if (part.type === 'text')
    return {
      id,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: part.text, annotations: [], logprobs: [] }],
    };
  if (isCustom(request, part.name))
    return {
      id,
      type: 'custom_tool_call',
      status: 'completed',
      call_id: part.id,
      name: part.name,
      input: customInput(part),
    };
  return {
    id,
    type: 'function_call',
    status: 'completed',
    call_id: part.id,
    name: part.name,
    arguments: typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {}),
  };
}

function customInput(part: ToolCallPart): string {
  if (typeof part.input === 'string') return part.input;
  const input = asRecord(part.input).input;
  return typeof input === 'string' ? input : JSON.stringify(part.input);
}

function itemPrefix(item: Json): string {
  return item.type === 'message' ? 'msg_' : item.type === 'custom_tool_call' ? 'ctc_' : 'fc_';
}

function responseObject(
  reply: ModelReply,
  request: ModelRequest,
  id: string,
  output: Json[],
  done: boolean,
): Json {
  const incomplete = reply.stopReason === 'max_tokens';
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: !done ? 'in_progress' : incomplete ? 'incomplete' : 'completed',
    error: null,
    incomplete_details: done && incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: null,
    max_output_tokens: request.maxTokens ?? null,
    model: reply.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: done ? usageJson(reply.usage) : null,
    metadata: {},
  };
}

export const responsesCodec: ApiCodec = {
  api: 'responses',

  parseRequest(body, query): ModelRequest {
    if (typeof body.model !== 'string' || body.model === '')
      throw badRequest('model: a model name is required');
    if (body.input === undefined) throw badRequest('input: a string or a list of input items is required');
    const system = [asString(body.instructions)].filter(Boolean);
    const messages = parseInput(body.input, system);
    return {
      api: 'responses',
      model: body.model,
      system: system.join('\n\n'),
      messages,
      tools: parseTools(body.tools),
      stream: body.stream === true,
      maxTokens: typeof body.max_output_tokens === 'number' ? body.max_output_tokens : undefined,
      body,
      query,
    };
  },

  renderReply(reply, request) {
    const output = reply.content.map((part) => {
      const item = outputItem(part, request, '');
      return { ...item, id: newId(itemPrefix(item)) };
    });
    const response = responseObject(reply, request, newId('resp_'), output, true);
    return { ...response, output_text: reply.content.map((p) => (p.type === 'text' ? p.text : '')).join('') };
  },

  renderStream(reply, request) {
    const frames: string[] = [];
    let sequence = 0;
    const emit = (data: Json) =>
      frames.push(sseFrame({ ...data, sequence_number: sequence++ }, data.type as string));
    const id = newId('resp_');
    emit({ type: 'response.created', response: responseObject(reply, request, id, [], false) });
    emit({ type: 'response.in_progress', response: responseObject(reply, request, id, [], false) });
    const output: Json[] = [];
    reply.content.forEach((part, output_index) => {
      const done = outputItem(part, request, '');
      const item_id = newId(itemPrefix(done));
      done.id = item_id;
      if (part.type === 'text') {
        emit({
          type: 'response.output_item.added',
          output_index,
          item: { id: item_id, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
        });
        const empty = { type: 'output_text', text: '', annotations: [], logprobs: [] };
        emit({ type: 'response.content_part.added', item_id, output_index, content_index: 0, part: empty });
        for (const delta of chunks(part.text))
          emit({
            type: 'response.output_text.delta',
            item_id,
            output_index,
            content_index: 0,
            delta,
            logprobs: [],
          });
        emit({
          type: 'response.output_text.done',
          item_id,
          output_index,
          content_index: 0,
          text: part.text,
          logprobs: [],
        });
        emit({
          type: 'response.content_part.done',
          item_id,
          output_index,
          content_index: 0,
          part: { ...empty, text: part.text },
        });
      } else {
        // Function calls stream `arguments`, free-form (custom) tool calls stream `input`.
        const [field, events] =
          done.type === 'custom_tool_call'
            ? (['input', 'response.custom_tool_call_input'] as const)
            : (['arguments', 'response.function_call_arguments'] as const);
        emit({
          type: 'response.output_item.added',
          output_index,
          item: { ...done, status: 'in_progress', [field]: '' },
        });
        const value = done[field] as string;
        for (const delta of chunks(value, 512))
          emit({ type: `${events}.delta`, item_id, output_index, delta });
        emit({
          type: `${events}.done`,
          item_id,
          output_index,
          [field]: value,
          ...(field === 'arguments' ? { name: part.name } : {}),
        });
      }
      emit({ type: 'response.output_item.done', output_index, item: done });
      output.push(done);
    });
    const final = responseObject(reply, request, id, output, true);
    emit({
      type: final.status === 'incomplete' ? 'response.incomplete' : 'response.completed',
      response: final,
    });
    return frames;
  },

  renderRequest(request, model) {
    const input: Json[] = [];
    for (const message of request.messages)
      for (const part of message.content) {
        if (part.type === 'text')
          input.push({
            type: 'message',
            role: message.role,
            content: [{ type: message.role === 'user' ? 'input_text' : 'output_text', text: part.text }],
          });
        else if (part.type === 'tool_call')
          input.push(
            isCustom(request, part.name)
              ? { type: 'custom_tool_call', call_id: part.id, name: part.name, input: customInput(part) }
              : {
                  type: 'function_call',
                  call_id: part.id,
                  name: part.name,
                  arguments: JSON.stringify(part.input ?? {}),
                },
          );
        else {
          const custom = request.messages.some((m) =>
            m.content.some(
              (p) => p.type === 'tool_call' && p.id === part.callId && isCustom(request, p.name),
            ),
          );
          input.push({
            type: custom ? 'custom_tool_call_output' : 'function_call_output',
            call_id: part.callId,
            output: part.content,
          });
        }
      }
    return {
      model,
      input,
      store: false,
      ...(request.system ? { instructions: request.system } : {}),
      ...(request.maxTokens ? { max_output_tokens: request.maxTokens } : {}),
      ...(request.tools.length > 0
        ? {
            tools: request.tools.map((tool) =>
              tool.kind === 'custom'
                ? { type: 'custom', name: tool.name, description: tool.description }
                : {
                    type: 'function',
                    name: tool.name,
                    description: tool.description,
                    parameters: tool.inputSchema ?? {},
                  },
            ),
          }
        : {}),
    };
  },

  renderError(status, message) {
    return { error: { message, type: openaiErrorType(status), param: null, code: null } };
  },

  parseReply(text, stream): ModelReply {
    let response: Json | undefined;
    if (!stream) response = parseJsonObject(text, 'Responses reply');
    else
      for (const { data } of parseSse(text)) {
        if (data === '[DONE]') continue;
        const event = parseJsonObject(data, 'Responses stream event');
        if (event.type === 'response.completed' || event.type === 'response.incomplete')
          response = asRecord(event.response);
      }
    if (!response) throw new Error('Responses stream ended without response.completed');
    const content: ModelReply['content'] = [];
    for (const raw of asArray(response.output)) {
      const item = asRecord(raw);
      if (item.type === 'message') content.push({ type: 'text', text: contentText(item.content) });
      else if (item.type === 'function_call')
        content.push({
          type: 'tool_call',
          id: asString(item.call_id),
          name: asString(item.name),
          input: parseArguments(asString(item.arguments)),
        });
      else if (item.type === 'custom_tool_call')
        content.push({
          type: 'tool_call',
          id: asString(item.call_id),
          name: asString(item.name),
          input: asString(item.input),
        });
    }
    return {
      model: asString(response.model),
      content,
      stopReason:
        response.status === 'incomplete'
          ? 'max_tokens'
          : content.some((p) => p.type === 'tool_call')
            ? 'tool_use'
            : 'end',
      usage: readUsage(response.usage),
    };
  },
};
