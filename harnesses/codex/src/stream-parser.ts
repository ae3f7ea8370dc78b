import {
  type AgentStreamParser,
  asNumber,
  asObject,
  emptyUsage,
  errorStatus,
  type JsonObject,
  parseJsonLine,
  type Status,
  type TrajectoryEvent,
  type Usage,
} from '@longhaul/core';

function str(value: unknown): string {
  return typeof value === 'string'
    ? value
    : value === undefined || value === null
      ? ''
      : JSON.stringify(value);
}

/** Codex counts cached input inside input_tokens; longhaul's Usage keeps them apart. */
function usageOf(usage: JsonObject): Usage {
  const cacheRead = asNumber(usage.cached_input_tokens);
  const cacheWrite = asNumber(usage.cache_write_input_tokens);
  return {
    inputTokens: Math.max(0, asNumber(usage.input_tokens) - cacheRead - cacheWrite),
    outputTokens: asNumber(usage.output_tokens),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    costUsd: 0,
  };
}

/** The status of a failed turn, from what Codex says about the failed model request. */
export function failureStatus(message: string): Status {
  if (/\b(401|403)\b|unauthori[sz]ed|forbidden|invalid api key/i.test(message)) return errorStatus('auth');
  if (/\b429\b|rate limit|too many requests/i.test(message)) return errorStatus('rate_limit');
  if (/context window|context_length|maximum context|too long/i.test(message))
    return errorStatus('context_overflow');
  return errorStatus('model');
}

/** The tool call an item stands for: its name and input (the item minus its bookkeeping). */
function callOf(item: JsonObject): { name: string; input: unknown } {
  const type = str(item.type);
  if (type === 'command_execution')
    return { name: 'command_execution', input: { command: str(item.command) } };
  if (type === 'file_change') return { name: 'file_change', input: { changes: item.changes ?? [] } };
  if (type === 'mcp_tool_call')
    return { name: `${str(item.server)}.${str(item.tool)}`, input: item.arguments ?? {} };
  if (type === 'web_search') return { name: 'web_search', input: { query: str(item.query) } };
  const { id: _id, type: _type, status: _status, ...rest } = item;
  return { name: type, input: rest };
}

/** The output of a finished item and whether it failed. */
function resultOf(item: JsonObject): { output: string; isError: boolean } {
  const failed = item.status === 'failed' || item.status === 'declined';
  switch (item.type) {
    case 'command_execution': {
      const exitCode = item.exit_code;
      return {
        output: str(item.aggregated_output),
        isError: failed || (typeof exitCode === 'number' && exitCode !== 0),
      };
    }
    case 'file_change': {
      const changes = Array.isArray(item.changes) ? (item.changes as JsonObject[]) : [];
      return { output: changes.map((c) => `${str(c.kind)} ${str(c.path)}`).join('\n'), isError: failed };
    }
    case 'mcp_tool_call':
      return {
        output: item.error ? str(asObject(item.error)?.message ?? item.error) : str(item.result),
        isError: failed || !!item.error,
      };
    default:
      return { output: str(item.result ?? item.output ?? ''), isError: failed };
  }
}

const textItems = new Set(['agent_message', 'reasoning', 'error', 'todo_list']);

/**
 * Reads `codex exec --json`: one JSON event per line (thread.started, turn.started, item.started /
 * item.updated / item.completed, turn.completed with usage, turn.failed, error).
 */
export class CodexStreamParser implements AgentStreamParser {
  outcome: { status: Status; error?: string } | undefined;
  finalText = '';
  usage: Usage = emptyUsage();
  sessionId: string | undefined;
  lastError: string | undefined;
  private readonly called = new Set<string>();

  constructor(
    private readonly resumed: boolean,
    private readonly model: string,
  ) {}

  parse(line: string): TrajectoryEvent[] {
    const event = parseJsonLine('codex', line);
    switch (event.type) {
      case 'thread.started':
        this.sessionId = str(event.thread_id);
        return [
          { type: 'session.start', sessionId: this.sessionId, resumed: this.resumed, model: this.model },
        ];
      case 'item.started':
        return this.started(asObject(event.item) ?? {});
      case 'item.completed':
        return this.completed(asObject(event.item) ?? {});
      case 'turn.completed': {
        this.usage = usageOf(asObject(event.usage) ?? {});
        this.outcome = { status: 'ok' };
        return [{ type: 'usage', usage: this.usage, model: this.model }];
      }
      case 'turn.failed': {
        const message = str(asObject(event.error)?.message ?? event.error) || 'the turn failed';
        this.lastError = message;
        this.outcome = { status: failureStatus(message), error: message };
        return [{ type: 'error', errorClass: this.outcome.status.replace(/^error:/, ''), message }];
      }
      case 'error': {
        const message = str(event.message);
        this.lastError = message;
        return [{ type: 'error', errorClass: 'model', message }];
      }
      default:
        // turn.started, item.updated (todo list progress) and event types of newer versions.
        return [];
    }
  }

  private started(item: JsonObject): TrajectoryEvent[] {
    const id = str(item.id);
    if (!id || textItems.has(str(item.type)) || this.called.has(id)) return [];
    this.called.add(id);
    return [{ type: 'tool.call', id, ...callOf(item) }];
  }

  private completed(item: JsonObject): TrajectoryEvent[] {
    const id = str(item.id);
    switch (item.type) {
      case 'agent_message':
        this.finalText = str(item.text);
        return [{ type: 'message', role: 'assistant', text: this.finalText }];
      case 'reasoning':
        return item.text ? [{ type: 'reasoning', text: str(item.text) }] : [];
      case 'error':
        // Warnings such as "model metadata not found": the turn goes on.
        return [{ type: 'error', errorClass: 'agent', message: str(item.message) }];
      case 'todo_list':
        return [];
      default: {
        const events = this.started(item);
        return [...events, { type: 'tool.result', id, ...resultOf(item) }];
      }
    }
  }
}
