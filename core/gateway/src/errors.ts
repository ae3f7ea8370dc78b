import { ClassifiedError } from '@longhaul/core';

/**
 * A failure answered to the caller with an HTTP status in its API's error format, and recorded
 * for the trial with its class (auth, rate_limit, context_overflow, refusal, server, replay...).
 */
export class GatewayError extends ClassifiedError {
  constructor(
    readonly status: number,
    errorClass: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(errorClass, message, options);
    this.name = 'GatewayError';
  }
}

export function badRequest(message: string): GatewayError {
  return new GatewayError(400, 'invalid_request', message);
}

const sharedTypes: Record<number, string> = {
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
};

/** Anthropic's error `type` for an HTTP status. */
export function anthropicErrorType(status: number): string {
  const own: Record<number, string> = { 413: 'request_too_large', 529: 'overloaded_error' };
  return own[status] ?? sharedTypes[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** OpenAI's error `type` for an HTTP status. */
export function openaiErrorType(status: number): string {
  return sharedTypes[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error');
}
