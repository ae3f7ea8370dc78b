import type { IncomingMessage } from 'node:http';
import { GatewayError } from './errors.js';

/** A request body larger than this is refused with 413 (Anthropic's own limit is 32 MB). */
export const defaultMaxBodyBytes = 16 * 1024 * 1024;
/** Request body bytes all requests together may hold; past it a request is answered 503. */
export const defaultMaxInFlightBytes = 64 * 1024 * 1024;

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

/**
 * The bytes of request bodies the gateway holds at once. A request keeps its share until it
 * ends (its parsed body lives as long), so concurrent huge bodies cannot push the runner's
 * memory past the bound, whoever sends them.
 */
export class BodyBudget {
  private held = 0;

  constructor(readonly limit: number) {}

  /** Takes `bytes` from the budget; false (and nothing taken) when that would pass the limit. */
  take(bytes: number): boolean {
    if (this.held + bytes > this.limit) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held -= bytes;
  }
}

/**
 * Reads a JSON object body of at most `maxBytes`, charging `budget` for every chunk as it
 * arrives; `hold` is told each charge, so the caller returns them when the request ends. A
 * declared length over the cap is refused before a byte is read.
 */
export async function readBody(
  req: IncomingMessage,
  maxBytes: number,
  budget: BodyBudget,
  hold: (bytes: number) => void,
): Promise<Record<string, unknown>> {
  const tooLarge = () =>
    new GatewayError(413, 'invalid_request', `request body exceeds the gateway's limit of ${mib(maxBytes)}`);
  const declared = Number(req.headers['content-length']);
  if (declared > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const bytes = (chunk as Buffer).length;
    size += bytes;
    if (size > maxBytes) throw tooLarge();
    if (!budget.take(bytes))
      throw new GatewayError(
        503,
        'rate_limit',
        `the gateway holds ${mib(budget.limit)} of request bodies already; retry shortly`,
      );
    hold(bytes);
    chunks.push(chunk as Buffer);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new GatewayError(400, 'invalid_request', 'request body is not valid JSON');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new GatewayError(400, 'invalid_request', 'request body must be a JSON object');
  return body as Record<string, unknown>;
}
