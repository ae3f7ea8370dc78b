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

interface ContentBlock {
  type?: string;
  text?: string;
  thinking?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}

function blocks(message: unknown): ContentBlock[] {
  const content = asObject(message)?.content;
  return Array.isArray(content) ? (content as ContentBlock[]) : [];
}

/** Tool results come as a string or as text/image parts. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined ? '' : JSON.stringify(content);
  return content
    .map((part: ContentBlock) => (part.type === 'text' ? (part.text ?? '') : `[${part.type ?? 'part'}]`))
    .join('\n');
}

/** Tokens from an Anthropic usage object; its input_tokens already exclude cache reads and writes. */
function usageOf(result: JsonObject): Usage {
  const usage = asObject(result.usage) ?? {};
  const sinceLast = asObject(result.model_usage_since_last_result);
  // total_cost_usd is cumulative over a resumed session; the per-model figures are for this run.
  const costUsd = sinceLast
    ? Object.values(sinceLast).reduce<number>((sum, model) => sum + asNumber(asObject(model)?.costUSD), 0)
    : asNumber(result.total_cost_usd);
  return {
    inputTokens: asNumber(usage.input_tokens),
    outputTokens: asNumber(usage.output_tokens),
    cacheReadTokens: asNumber(usage.cache_read_input_tokens),
    cacheWriteTokens: asNumber(usage.cache_creation_input_tokens),
    costUsd,
  };
}

/** The status of a result that is an error, from the HTTP status of the failed API call if any. */
function errorOutcome(result: JsonObject): { status: Status; error: string } {
  const errors = Array.isArray(result.errors) ? result.errors.map(String) : [];
  const text = [typeof result.result === 'string' ? result.result : '', ...errors].filter(Boolean).join('; ');
  const subtype = String(result.subtype ?? '');
  if (subtype === 'error_max_turns')
    return { status: 'failed', error: text || 'reached the maximum number of turns' };
  if (subtype === 'error_during_execution') return { status: errorStatus('crash'), error: text || subtype };
  const httpStatus = asNumber(result.api_error_status);
  if (httpStatus === 401 || httpStatus === 403) return { status: errorStatus('auth'), error: text };
  if (httpStatus === 429) return { status: errorStatus('rate_limit'), error: text };
  if (/prompt is too long|context (window|length)/i.test(text))
    return { status: errorStatus('context_overflow'), error: text };
  if (httpStatus >= 400 || /API Error/i.test(text)) return { status: errorStatus('model'), error: text };
  return { status: 'failed', error: text || `claude ended with ${subtype || 'an error'}` };
}

/**
 * Reads `claude -p --output-format stream-json --verbose`: one JSON object per line (system
 * init, assistant and user messages with content blocks, compaction boundaries, API retries,
 * and a final result).
 */
export class ClaudeStreamParser implements AgentStreamParser {
  outcome: { status: Status; error?: string } | undefined;
  finalText = '';
  usage: Usage = emptyUsage();
  sessionId: string | undefined;

  constructor(private readonly resumed: boolean) {}

  parse(line: string): TrajectoryEvent[] {
    const event = parseJsonLine('claude', line);
    switch (event.type) {
      case 'system':
        return this.system(event);
      case 'assistant':
        return this.assistant(event);
      case 'user':
        return this.user(event);
      case 'result':
        return this.result(event);
      default:
        // Newer versions add event types (stream_event, tool_progress...): not part of the trajectory.
        return [];
    }
  }

  private system(event: JsonObject): TrajectoryEvent[] {
    if (event.subtype === 'init' && typeof event.session_id === 'string') {
      this.sessionId = event.session_id;
      const start: TrajectoryEvent = {
        type: 'session.start',
        sessionId: event.session_id,
        resumed: this.resumed,
      };
      if (typeof event.model === 'string') start.model = event.model;
      return [start];
    }
    if (event.subtype === 'compact_boundary') {
      const metadata = asObject(event.compact_metadata) ?? {};
      const compaction: TrajectoryEvent = {
        type: 'compaction',
        trigger: metadata.trigger === 'manual' ? 'manual' : 'auto',
      };
      if (typeof metadata.pre_tokens === 'number') compaction.tokensBefore = metadata.pre_tokens;
      if (typeof metadata.post_tokens === 'number') compaction.tokensAfter = metadata.post_tokens;
      return [compaction];
    }
    if (event.subtype === 'api_retry') {
      const status = event.error_status ?? 'no response';
      return [
        {
          type: 'error',
          errorClass: 'model',
          message: `model request failed (${status}: ${String(event.error ?? 'unknown')}); retry ${asNumber(event.attempt)} of ${asNumber(event.max_retries)}`,
        },
      ];
    }
    return [];
  }

  private assistant(event: JsonObject): TrajectoryEvent[] {
    const events: TrajectoryEvent[] = [];
    for (const block of blocks(event.message)) {
      if (block.type === 'text' && block.text) {
        events.push({ type: 'message', role: 'assistant', text: block.text });
        this.finalText = block.text;
      } else if (block.type === 'thinking' && block.thinking) {
        events.push({ type: 'reasoning', text: block.thinking });
      } else if (block.type === 'tool_use' && block.id && block.name) {
        events.push({ type: 'tool.call', id: block.id, name: block.name, input: block.input ?? {} });
      }
    }
    return events;
  }

  private user(event: JsonObject): TrajectoryEvent[] {
    return blocks(event.message)
      .filter((block) => block.type === 'tool_result' && block.tool_use_id)
      .map((block) => ({
        type: 'tool.result',
        id: block.tool_use_id as string,
        output: resultText(block.content),
        isError: block.is_error === true,
      }));
  }

  private result(event: JsonObject): TrajectoryEvent[] {
    this.usage = usageOf(event);
    if (typeof event.result === 'string' && event.result) this.finalText = event.result;
    this.outcome =
      event.is_error === true || event.subtype !== 'success' ? errorOutcome(event) : { status: 'ok' };
    const model = asObject(event.modelUsage) ? Object.keys(event.modelUsage as JsonObject)[0] : undefined;
    const usage: TrajectoryEvent = { type: 'usage', usage: this.usage };
    if (model) usage.model = model;
    return [usage];
  }
}
