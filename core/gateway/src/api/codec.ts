import type { Api, ModelReply, ModelRequest } from '../model.js';

/** How one wire API maps to the gateway's request and reply shapes, both ways. */
export interface ApiCodec {
  api: Api;
  parseRequest(body: Record<string, unknown>, query: string): ModelRequest;
  renderReply(reply: ModelReply, request: ModelRequest): Record<string, unknown>;
  /** The reply as server-sent event frames, ready to write. */
  renderStream(reply: ModelReply, request: ModelRequest): string[];
  renderError(status: number, message: string): Record<string, unknown>;
  /** The request as a non-streaming call of this API (for a provider reached through another API). */
  renderRequest(request: ModelRequest, model: string): Record<string, unknown>;
  /** Reads a provider's reply body (JSON, or an event stream when `stream`) into a reply. */
  parseReply(text: string, stream: boolean): ModelReply;
}

export type Json = Record<string, unknown>;

export function asRecord(value: unknown): Json {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function asNumber(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** Text of a content value that may be a string or a list of typed blocks. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((block) => {
      const b = asRecord(block);
      if (typeof b.text === 'string') return b.text;
      if (b.type === 'image' || b.type === 'input_image' || b.type === 'image_url') return '[image]';
      return '';
    })
    .filter(Boolean)
    .join('\n');
}

/** Parses tool-call arguments; a model may send invalid JSON, which is kept as the raw string. */
export function parseArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
