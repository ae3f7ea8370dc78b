import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Usage } from '@longhaul/core';
import { anthropicCodec } from './api/anthropic.js';
import { chatCodec } from './api/chat.js';
import type { ApiCodec } from './api/codec.js';
import { responsesCodec } from './api/responses.js';
import type { Backend, BackendResult, CallContext } from './backends/backend.js';
import { GatewayError } from './errors.js';
import { estimateTokens, requestText } from './metering.js';
import type { ModelReply, ModelRequest } from './model.js';
import { sseFrame } from './sse.js';

const maxBodyBytes = 64 * 1024 * 1024;

/** What the HTTP layer needs from the gateway that owns it. */
export interface ServerHost {
  /** The trial a token belongs to, or undefined for an unknown token. */
  authenticate(token: string): string | undefined;
  backend(model: string): Backend | undefined;
  modelNames(): string[];
  context(trialId: string, modelName: string, signal: AbortSignal): CallContext;
  /** Called once per answered request with what was answered; returns what it metered. */
  replied(trialId: string, request: ModelRequest, reply: ModelReply): Usage;
  failed(trialId: string | undefined, error: GatewayError): void;
  /** Called once per request when it ends, answered or not. */
  finished(entry: RequestEntry): void;
}

/** One line of `<runDir>/gateway/requests.jsonl`: what was asked and how it went, never content. */
export interface RequestEntry {
  at: string;
  trial?: string;
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

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBodyBytes)
      throw new GatewayError(413, 'invalid_request', `request body exceeds ${maxBodyBytes} bytes`);
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

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
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
  const started = performance.now();
  const entry: RequestEntry = { at: new Date().toISOString(), path, status: 200, ms: 0 };
  let trialId: string | undefined;
  try {
    const token = tokenOf(req);
    trialId = token ? host.authenticate(token) : undefined;
    if (!trialId)
      throw new GatewayError(
        401,
        'auth',
        'invalid or missing gateway token (x-api-key or Authorization: Bearer)',
      );
    if (req.method === 'GET' && path === '/v1/models')
      return sendJson(res, 200, modelList(host.modelNames()));
    if (!route || req.method !== 'POST')
      throw new GatewayError(404, 'invalid_request', `no such endpoint: ${req.method} ${url.pathname}`);
    entry.trial = trialId;
    const request = codec.parseRequest(await readBody(req), url.search.replace(/^\?/, ''));
    request.headers = forwardedHeaders(req);
    entry.model = request.model;
    entry.stream = request.stream;
    const backend = host.backend(request.model);
    if (!backend)
      throw new GatewayError(
        404,
        'invalid_request',
        `model '${request.model}' is not configured; the experiment's models: has ${host.modelNames().join(', ') || 'none'}`,
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
    if (!res.headersSent) sendJson(res, failure.status, codec.renderError(failure.status, failure.message));
    else res.end(streamError(codec, failure));
  } finally {
    entry.ms = Math.round((performance.now() - started) * 10) / 10;
    host.finished(entry);
  }
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
