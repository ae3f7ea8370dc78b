import {
  AgentProtocolError,
  type AgentStreamParser,
  emptyUsage,
  errorStatus,
  type Status,
  type TrajectoryEvent,
  type Usage,
} from '@longhaul/core';

type Json = Record<string, unknown>;

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

function asObject(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
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

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** Tokens from an Anthropic usage object; its input_tokens already exclude cache reads and writes. */
function usageOf(result: Json): Usage {
  const usage = asObject(result.usage) ?? {};
  const sinceLast = asObject(result.model_usage_since_last_result);
  // total_cost_usd is cumulative over a resumed session; the per-model figures are for this run.
  const costUsd = sinceLast
    ? Object.values(sinceLast).reduce<number>((sum, model) => sum + num(asObject(model)?.costUSD), 0)
    : num(result.total_cost_usd);
  return {
    inputTokens: num(usage.input_tokens),
    outputTokens: num(usage.output_tokens),
    cacheReadTokens: num(usage.cache_read_input_tokens),
    cacheWriteTokens: num(usage.cache_creation_input_tokens),
    costUsd,
  };
}

/** The status of a result that is an error, from the HTTP status of the failed API call if any. */
function errorOutcome(result: Json): { status: Status; error: string } {
  const errors = Array.isArray(result.errors) ? result.errors.map(String) : [];
  const text = [typeof result.result === 'string' ? result.result : '', ...errors].filter(Boolean).join('; ');
  const subtype = String(result.subtype ?? '');
  if (subtype === 'error_max_turns')
    return { status: 'failed', error: text || 'reached the maximum number of turns' };
  if (subtype === 'error_during_execution') return { status: errorStatus('crash'), error: text || subtype };
  const httpStatus = num(result.api_error_status);
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
    let event: Json | undefined;
    try {
      event = asObject(JSON.parse(line));
    } catch {
      throw new AgentProtocolError(`claude printed a line that is not JSON: ${line.slice(0, 200)}`);
    }
    if (!event || typeof event.type !== 'string')
      throw new AgentProtocolError(`claude printed JSON without a type: ${line.slice(0, 200)}`);
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

  private system(event: Json): TrajectoryEvent[] {
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
          message: `model request failed (${status}: ${String(event.error ?? 'unknown')}); retry ${num(event.attempt)} of ${num(event.max_retries)}`,
        },
      ];
    }
    return [];
  }

  private assistant(event: Json): TrajectoryEvent[] {
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

  private user(event: Json): TrajectoryEvent[] {
    return blocks(event.message)
      .filter((block) => block.type === 'tool_result' && block.tool_use_id)
      .map((block) => ({
        type: 'tool.result',
        id: block.tool_use_id as string,
        output: resultText(block.content),
        isError: block.is_error === true,
      }));
  }

  private result(event: Json): TrajectoryEvent[] {
    this.usage = usageOf(event);
    if (typeof event.result === 'string' && event.result) this.finalText = event.result;
    this.outcome =
      event.is_error === true || event.subtype !== 'success' ? errorOutcome(event) : { status: 'ok' };
    const model = asObject(event.modelUsage) ? Object.keys(event.modelUsage as Json)[0] : undefined;
    const usage: TrajectoryEvent = { type: 'usage', usage: this.usage };
    if (model) usage.model = model;
    return [usage];
  }
}
