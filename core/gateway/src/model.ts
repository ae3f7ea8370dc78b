/**
 * The one request and reply shape every wire API is translated to and from. Backends only ever
 * see these; the API modules render them back in the caller's format.
 */
export type Api = 'anthropic' | 'responses' | 'chat';

export interface TextPart {
  type: 'text';
  text: string;
}

export interface ToolCallPart {
  type: 'tool_call';
  id: string;
  name: string;
  /** Parsed arguments for function tools; the raw string for free-form (custom) tools. */
  input: unknown;
}

export interface ToolResultPart {
  type: 'tool_result';
  callId: string;
  content: string;
  isError?: boolean;
}

export type Part = TextPart | ToolCallPart | ToolResultPart;

export interface ModelMessage {
  role: 'user' | 'assistant';
  content: Part[];
}

export interface ToolSpec {
  name: string;
  description?: string;
  /** JSON Schema of the arguments (function tools). */
  inputSchema?: Record<string, unknown>;
  /** `custom`: a free-form tool whose input is one string (Codex's `apply_patch`). */
  kind: 'function' | 'custom';
}

export interface ModelRequest {
  api: Api;
  model: string;
  system: string;
  messages: ModelMessage[];
  tools: ToolSpec[];
  stream: boolean;
  maxTokens?: number;
  /** The body as the caller sent it, for backends that forward it. */
  body: Record<string, unknown>;
  /** Query string of the request path, without `?` (Claude Code sends `beta=true`). */
  query: string;
  /** API version and beta headers the caller sent, for backends that forward the request. */
  headers?: Record<string, string>;
}

export interface TokenCounts {
  /** Input tokens not read from or written to the prompt cache. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export type StopReason = 'end' | 'tool_use' | 'max_tokens' | 'refusal';

export interface ModelReply {
  model: string;
  content: (TextPart | ToolCallPart)[];
  stopReason: StopReason;
  usage: TokenCounts;
  /** True when `usage` was estimated from text lengths rather than reported by a provider. */
  estimated?: boolean;
}

export function zeroCounts(): TokenCounts {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}

/** Text of a message's text parts and tool results, the way a scripted `when` or a log sees it. */
export function messageText(message: ModelMessage | undefined): string {
  if (!message) return '';
  return message.content
    .map((part) => (part.type === 'text' ? part.text : part.type === 'tool_result' ? part.content : ''))
    .filter(Boolean)
    .join('\n');
}
