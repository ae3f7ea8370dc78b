import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Usage } from '@longhaul/core';
import { anthropicCodec } from './api/anthropic.js';
import { chatCodec } from './api/chat.js';
import type { ApiCodec } from './api/codec.js';
import { responsesCodec } from './api/responses.js';
import type { Backend, BackendResult, CallContext } from './backends/backend.js';
import { type BodyBudget, readBody } from './body.js';
import { GatewayError } from './errors.js';
import type { Grant } from './grants.js';
import { estimateTokens, requestText } from './metering.js';
import type { ModelReply, ModelRequest } from './model.js';
import { sseFrame } from './sse.js';

/** Text a caller chose, as it may appear in a log line: printable ASCII, at most 120 characters. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 120);
}

/** What the HTTP layer needs from the gateway that owns it. */
export interface ServerHost {
  /** What a token allows, or undefined for an unknown or revoked token. */
  authenticate(token: string): Grant | undefined;
  /** Counts a request without a valid token from `address`; true when it is past the rate limit. */
  unauthenticated(address: string, what: string): boolean;
  backend(model: string): Backend | undefined;
  /** Request bodies: the cap per request and the budget of all requests together. */
  maxBodyBytes: number;
  bodies: BodyBudget;
  context(trialId: string, modelName: string, signal: AbortSignal): CallContext;
  /** Called once per answered request with what was answered; returns what it metered. */
  replied(trialId: string, request: ModelRequest, reply: ModelReply): Usage;
  failed(trialId: string, error: GatewayError): void;
  /** Called once per request with a valid token when it ends, answered or not. */
  finished(entry: RequestEntry): void;
}

/** One line of `<runDir>/gateway/requests.jsonl`: what was asked and how it went, never content. */
export interface RequestEntry {
  at: string;
  trial: string;
  model?: string;
  path: string;
  stream?: boolean;
  status: number;
  ms: number;
  usage?: Usage;
  errorClass?: string;
}

const routes: Record<string, { codec: ApiCodec; count?: boolean }> = {
  '/v1/messages': { codec: anthropicCodec },
  '/v1/messages/count_tokens': { codec: anthropicCodec, count: true },
  '/v1/responses': { codec: responsesCodec },
  '/v1/chat/completions': { codec: chatCodec },
};

function tokenOf(req: IncomingMessage): string | undefined {
  const key = req.headers['x-api-key'];
  if (typeof key === 'string' && key) return key;
  const auth = req.headers.authorization;
  if (auth?.toLowerCase().startsWith('bearer ')) return auth.slice(7).trim();
  return undefined;
}

/** Headers that change what a provider does; never credentials. */
const forwarded = ['anthropic-version', 'anthropic-beta', 'openai-beta', 'accept'];

function forwardedHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of forwarded) {
    const value = req.headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/** `close`: end the connection after the answer (an unread request body is not waited for). */
function sendJson(res: ServerResponse, status: number, body: unknown, close = false): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(text);
}

function modelList(names: string[]): Record<string, unknown> {
  // One list both SDK families read: OpenAI looks at `object`/`id`, Anthropic at `type`/`id`/`has_more`.
  const data = names.map((id) => ({
    id,
    object: 'model',
    type: 'model',
    display_name: id,
    created: 0,
    created_at: '1970-01-01T00:00:00Z',
    owned_by: 'longhaul',
  }));
  return { object: 'list', data, has_more: false, first_id: names[0] ?? null, last_id: names.at(-1) ?? null };
}

export function createHandler(host: ServerHost): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(host, req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error), type: 'server_error' } });
      else res.destroy();
    });
  };
}

async function handle(host: ServerHost, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://gateway');
  const path = url.pathname.replace(/\/+$/, '');
  const route = routes[path];
  const codec = route?.codec ?? responsesCodec;
  const token = tokenOf(req);
  const grant = token ? host.authenticate(token) : undefined;
  if (!grant) return refuseUnauthenticated(host, req, res, codec);
  const { trialId } = grant;
  const started = performance.now();
  const entry: RequestEntry = { at: new Date().toISOString(), trial: trialId, path, status: 200, ms: 0 };
  let held = 0;
  try {
    if (req.method === 'GET' && path === '/v1/models') return sendJson(res, 200, modelList([grant.model]));
    if (!route || req.method !== 'POST')
      throw new GatewayError(404, 'invalid_request', `no such endpoint: ${req.method} ${url.pathname}`);
    const body = await readBody(req, host.maxBodyBytes, host.bodies, (bytes) => {
      held += bytes;
    });
    const request = codec.parseRequest(body, url.search.replace(/^\?/, ''));
    request.headers = forwardedHeaders(req);
    // The caller's model name goes into logs and the trajectory: printable, and not much of it.
    entry.model = printable(request.model);
    entry.stream = request.stream;
    // Checked before any backend sees the request: the oracle and provider models stay out of reach.
    const backend = request.model === grant.model ? host.backend(request.model) : undefined;
    if (!backend)
      throw new GatewayError(
        403,
        'forbidden',
        `model '${entry.model}' is not available to this token, which allows the model '${grant.model}' only`,
      );
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const context = host.context(trialId, request.model, abort.signal);
    if (route.count) {
      const counted = await backend.countTokens?.(request, context);
      return sendJson(res, 200, { input_tokens: counted ?? estimateTokens(requestText(request)) });
    }
    const result = await backend.complete(request, context);
    entry.status = result.kind === 'raw' ? result.status : 200;
    entry.usage = await answer(host, trialId, codec, request, result, res);
  } catch (error) {
    const failure =
      error instanceof GatewayError
        ? error
        : new GatewayError(500, 'internal', String(error), { cause: error });
    entry.status = failure.status;
    entry.errorClass = failure.errorClass;
    // A caller that hung up mid-answer has nobody left to tell.
    if (res.destroyed && !res.writableEnded) {
      entry.status = 499;
      entry.errorClass = 'cancelled';
      return;
    }
    host.failed(trialId, failure);
    if (!res.headersSent)
      sendJson(res, failure.status, codec.renderError(failure.status, failure.message), !req.complete);
    else res.end(streamError(codec, failure));
  } finally {
    host.bodies.give(held);
    entry.ms = Math.round((performance.now() - started) * 10) / 10;
    host.finished(entry);
  }
}

/**
 * A request without a valid token: 401, or 429 past the rate limit of its address. Its body is
 * never read and the connection is closed after the answer, so a flood costs the runner little;
 * it is counted, not logged (see Unauthenticated).
 */
function refuseUnauthenticated(
  host: ServerHost,
  req: IncomingMessage,
  res: ServerResponse,
  codec: ApiCodec,
): void {
  const what = printable(`${req.method} ${req.url}`);
  const limited = host.unauthenticated(req.socket.remoteAddress ?? 'an unknown address', what);
  const [status, message] = limited
    ? [429, 'too many requests without a valid gateway token; slow down']
    : [401, 'invalid or missing gateway token (x-api-key or Authorization: Bearer)'];
  sendJson(res, status, codec.renderError(status, message), true);
}

/** The error event each API's stream parsers expect once a stream has started. */
function streamError(codec: ApiCodec, failure: GatewayError): string {
  const body = codec.renderError(failure.status, failure.message);
  if (codec.api === 'anthropic') return sseFrame(body, 'error');
  if (codec.api === 'chat') return sseFrame(body);
  return sseFrame(
    { type: 'error', code: failure.errorClass, message: failure.message, param: null },
    'error',
  );
}

async function answer(
  host: ServerHost,
  trialId: string,
  codec: ApiCodec,
  request: ModelRequest,
  result: BackendResult,
  res: ServerResponse,
): Promise<Usage | undefined> {
  if (result.kind === 'reply') {
    const usage = host.replied(trialId, request, result.reply);
    if (!request.stream) {
      sendJson(res, 200, codec.renderReply(result.reply, request));
      return usage;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    for (const frame of codec.renderStream(result.reply, request)) res.write(frame);
    res.end();
    return usage;
  }
  res.writeHead(result.status, { 'content-type': result.contentType, 'cache-control': 'no-cache' });
  const seen: Buffer[] = [];
  try {
    for await (const chunk of result.body) {
      seen.push(Buffer.from(chunk));
      res.write(chunk);
    }
  } catch (error) {
    throw new GatewayError(502, 'server', `the provider's answer broke off: ${String(error)}`, {
      cause: error,
    });
  }
  res.end();
  if (result.status >= 300) return undefined;
  let reply: ModelReply;
  try {
    reply = codec.parseReply(Buffer.concat(seen).toString('utf8'), request.stream);
  } catch (error) {
    // The caller already has the bytes; only metering is lost, and that is worth a warning.
    host.failed(
      trialId,
      new GatewayError(502, 'protocol', `unreadable provider reply, not metered: ${String(error)}`),
    );
    return undefined;
  }
  return host.replied(trialId, request, reply);
}
