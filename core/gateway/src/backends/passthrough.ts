import { setTimeout as sleep } from 'node:timers/promises';
import type { UpstreamModelConfig } from '../config.js';
import { GatewayError } from '../errors.js';
import type { Api, ModelRequest } from '../model.js';
import type { Backend, CallContext, RawResult } from './backend.js';

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
    private readonly name: string,
    private readonly config: UpstreamModelConfig,
    private readonly key: string,
  ) {}

  async complete(request: ModelRequest, context: CallContext): Promise<RawResult> {
    const { provider } = this.config;
    if (!serves[provider].includes(request.api))
      throw new GatewayError(
        400,
        'invalid_request',
        `model '${this.name}' passes through to the ${provider} API, which does not serve ${paths[request.api]}; ` +
          `call it through ${serves[provider].map((api) => paths[api]).join(' or ')}`,
      );
    const base = (this.config.baseUrl ?? defaultBaseUrls[provider]).replace(/\/+$/, '');
    const url = `${base}${paths[request.api]}${request.query ? `?${request.query}` : ''}`;
    const headers: Record<string, string> = { ...request.headers, 'content-type': 'application/json' };
    if (provider === 'anthropic') {
      headers['x-api-key'] = this.key;
      headers['anthropic-version'] ??= '2023-06-01';
    } else headers.authorization = `Bearer ${this.key}`;
    const body = JSON.stringify({ ...request.body, model: this.config.model });

    for (let attempt = 0; ; attempt++) {
      const signal = AbortSignal.any([context.signal, AbortSignal.timeout(this.config.timeoutMs)]);
      let response: Response;
      try {
        response = await fetch(url, { method: 'POST', headers, body, signal });
      } catch (error) {
        if (context.signal.aborted) throw new GatewayError(499, 'cancelled', 'the caller went away');
        if (attempt < this.config.retries) {
          await sleep(delayMs(attempt, this.config.backoffMs, null), undefined, { signal: context.signal });
          continue;
        }
        throw new GatewayError(
          502,
          'server',
          `${provider} unreachable after ${attempt + 1} attempt(s): ${cause(error)}`,
        );
      }
      if (response.ok && response.body)
        return {
          kind: 'raw',
          status: response.status,
          contentType: response.headers.get('content-type') ?? 'application/json',
          body: response.body,
        };
      const text = await response.text().catch(() => '');
      if (retryable(response.status) && attempt < this.config.retries) {
        await sleep(delayMs(attempt, this.config.backoffMs, response.headers.get('retry-after')), undefined, {
          signal: context.signal,
        });
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

function cause(error: unknown): string {
  const e = error as { cause?: { code?: string; message?: string }; message?: string };
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
}
