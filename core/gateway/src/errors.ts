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

/** Anthropic's error `type` for an HTTP status. */
export function anthropicErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** OpenAI's error `type` for an HTTP status. */
export function openaiErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}
