import { randomBytes } from 'node:crypto';

/** One server-sent event; `event` is omitted for APIs that send only `data:` lines. */
export function sseFrame(data: unknown, event?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ''}data: ${payload}\n\n`;
}

export interface SseEvent {
  event?: string;
  data: string;
}

/** Parses a complete event-stream body (used on recorded and forwarded streams). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.replace(/\r\n/g, '\n').split('\n\n')) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0) events.push({ event, data: data.join('\n') });
  }
  return events;
}

/** Random id with a provider-looking prefix (`msg_`, `toolu_`, `resp_`...). */
export function newId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

/** Splits text into a few pieces so streamed replies arrive as several deltas, like a model's. */
export function chunks(text: string, size = 48): string[] {
  if (text.length <= size) return [text];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export function parseJsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${what} is not valid JSON`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${what} is not a JSON object`);
  return value as Record<string, unknown>;
}
