import { setTimeout as sleep } from 'node:timers/promises';
import { codecs } from '../api/codecs.js';
import type { UpstreamModelConfig } from '../config.js';
import { GatewayError } from '../errors.js';
import type { Api, ModelReply, ModelRequest } from '../model.js';
import type { Backend, BackendResult, CallContext } from './backend.js';

const defaultBaseUrls = { anthropic: 'https://api.anthropic.com', openai: 'https://api.openai.com' };
const paths: Record<Api, string> = {
  anthropic: '/v1/messages',
  responses: '/v1/responses',
  chat: '/v1/chat/completions',
};
const serves: Record<UpstreamModelConfig['provider'], Api[]> = {
  anthropic: ['anthropic'],
  openai: ['responses', 'chat'],
};

const contextOverflow =
  /prompt is too long|context[ _-]?(length|window)|maximum context|too many tokens|input is too long|context_length_exceeded/i;

/** The class of a provider's error status and message. */
export function classifyUpstream(status: number, message: string): string {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if ((status === 400 || status === 413) && contextOverflow.test(message)) return 'context_overflow';
  if (status >= 500) return 'server';
  return 'invalid_request';
}

function retryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof body.error === 'object' && typeof body.error?.message === 'string') return body.error.message;
    if (typeof body.error === 'string') return body.error;
    if (typeof body.message === 'string') return body.message;
  } catch {}
  return text.slice(0, 500) || '(empty body)';
}

/** Delay before retry `attempt` (0-based): exponential with jitter, or what the provider asked for. */
function delayMs(attempt: number, backoffMs: number, retryAfter: string | null): number {
  const asked = retryAfter ? Number(retryAfter) * 1000 : Number.NaN;
  if (Number.isFinite(asked) && asked >= 0) return Math.min(asked, 60_000);
  return backoffMs * 2 ** attempt * (0.75 + Math.random() * 0.5);
}

/**
 * Forwards requests to the provider of the same API, byte for byte (only `model` is replaced by
 * the provider's model id), so everything a CLI relies on (thinking, cache control, betas) keeps
 * working. Retries 429, 5xx and connection failures with exponential backoff before answering
 * the caller; the provider key is read from the host environment and sent only to the provider.
 */
export class PassthroughBackend implements Backend {
  constructor(
    private readonly config: UpstreamModelConfig,
    private readonly key: string,
  ) {}

  async complete(request: ModelRequest, context: CallContext): Promise<BackendResult> {
    const { provider } = this.config;
    if (!serves[provider].includes(request.api)) return this.translated(request, context);
    const headers: Record<string, string> = { ...request.headers };
    const body = { ...request.body, model: this.config.model };
    const { response, done } = await this.send(
      paths[request.api],
      request.query,
      headers,
      body,
      context.signal,
    );
    return {
      kind: 'raw',
      status: response.status,
      contentType: response.headers.get('content-type') ?? 'application/json',
      body: finishing(response.body ?? emptyBody(), done),
    };
  }

  /** Anthropic counts tokens itself; other providers get the gateway's estimate. */
  async countTokens(request: ModelRequest, context: CallContext): Promise<number | undefined> {
    if (this.config.provider !== 'anthropic' || request.api !== 'anthropic') return undefined;
    const body = { ...request.body, model: this.config.model };
    const { response, done } = await this.send(
      `${paths.anthropic}/count_tokens`,
      request.query,
      { ...request.headers },
      body,
      context.signal,
    );
    const counted = (await response
      .json()
      .catch(() => ({}))
      .finally(done)) as { input_tokens?: unknown };
    return typeof counted.input_tokens === 'number' ? counted.input_tokens : undefined;
  }

  /**
   * A request in an API the provider does not speak (Chat Completions to Anthropic, Messages to
   * OpenAI): sent as a plain call in the provider's API and answered as a reply the caller's API
   * renders. What only one API has (thinking, cache control, betas) does not cross over.
   */
  private async translated(request: ModelRequest, context: CallContext): Promise<BackendResult> {
    const api: Api = this.config.provider === 'anthropic' ? 'anthropic' : 'chat';
    const codec = codecs[api];
    const body = codec.renderRequest(request, this.config.model);
    const { response, done } = await this.send(paths[api], '', {}, body, context.signal);
    const text = await response.text().finally(done);
    let reply: ModelReply;
    try {
      reply = codec.parseReply(text, false);
    } catch (error) {
      throw new GatewayError(
        502,
        'server',
        `${this.config.provider} sent an unreadable reply: ${String(error)}`,
      );
    }
    return { kind: 'reply', reply: { ...reply, model: request.model } };
  }

  /**
   * POSTs to the provider, retrying what is worth retrying; returns a 2xx response (call `done`
   * once its body is read) or throws a classified error.
   */
  private async send(
    path: string,
    query: string,
    extraHeaders: Record<string, string>,
    payload: Record<string, unknown>,
    callerSignal: AbortSignal,
  ): Promise<{ response: Response; done: () => void }> {
    const { provider } = this.config;
    const base = (this.config.baseUrl ?? defaultBaseUrls[provider]).replace(/\/+$/, '');
    const url = `${base}${path}${query ? `?${query}` : ''}`;
    const headers: Record<string, string> = { ...extraHeaders, 'content-type': 'application/json' };
    if (provider === 'anthropic') {
      headers['x-api-key'] = this.key;
      headers['anthropic-version'] ??= '2023-06-01';
    } else headers.authorization = `Bearer ${this.key}`;
    const body = JSON.stringify(payload);
    for (let attempt = 0; ; attempt++) {
      const { signal, done } = attemptSignal(callerSignal, this.config.timeoutMs);
      const wait = (retryAfter: string | null) =>
        sleep(delayMs(attempt, this.config.backoffMs, retryAfter), undefined, { signal: callerSignal });
      let response: Response;
      try {
        response = await fetch(url, { method: 'POST', headers, body, signal });
      } catch (error) {
        done();
        if (callerSignal.aborted) throw new GatewayError(499, 'cancelled', 'the caller went away');
        if (attempt < this.config.retries) {
          await wait(null);
          continue;
        }
        throw new GatewayError(
          502,
          'server',
          `${provider} unreachable after ${attempt + 1} attempt(s): ${cause(error)}`,
        );
      }
      if (response.ok) return { response, done };
      const text = await response.text().catch(() => '');
      done();
      if (retryable(response.status) && attempt < this.config.retries) {
        await wait(response.headers.get('retry-after'));
        continue;
      }
      const message = errorMessage(text).split(this.key).join('[redacted]');
      const retries = attempt > 0 ? ` after ${attempt + 1} attempts` : '';
      throw new GatewayError(
        response.status,
        classifyUpstream(response.status, message),
        `${provider} answered ${response.status}${retries}: ${message}`,
      );
    }
  }
}

async function* emptyBody(): AsyncIterable<Uint8Array> {}

async function* finishing(body: AsyncIterable<Uint8Array>, done: () => void): AsyncIterable<Uint8Array> {
  try {
    yield* body;
  } finally {
    done();
  }
}

/**
 * The signal of one attempt: aborted when the caller goes away or the attempt runs past its
 * time (reading the body included). `done` releases the timer and the listener; a long run makes
 * many requests, and neither may outlive its request.
 */
function attemptSignal(caller: AbortSignal, timeoutMs: number): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(caller.reason);
  caller.addEventListener('abort', onAbort, { once: true });
  if (caller.aborted) onAbort();
  const timer = setTimeout(() => controller.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      caller.removeEventListener('abort', onAbort);
    },
  };
}

function cause(error: unknown): string {
  const e = error as { cause?: { code?: string; message?: string }; message?: string };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
}
