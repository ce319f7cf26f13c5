import type { Response } from 'express';
import { AppError } from '@relay/core';
import type { GoogleError } from '../schemas/google.js';
import type { OpenAIError } from '../schemas/openai.js';

/** How an endpoint speaks errors: OpenAI style for images, Google style for speech. */
export type Dialect = 'openai' | 'google';

const OPENAI_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'insufficient_balance',
  404: 'not_found_error',
  409: 'conflict_error',
  413: 'invalid_request_error',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
};

const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  402: 'FAILED_PRECONDITION',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function openAIBody(error: AppError): OpenAIError {
  return {
    error: {
      message: error.message,
      type: OPENAI_TYPES[error.status] ?? (error.status >= 500 ? 'server_error' : 'invalid_request_error'),
      param: error.param ?? null,
      code: error.upstreamCode ?? error.code,
    },
  };
}

/** Google field paths are snake_case in error details; camelCase segments are converted. */
const snake = (path: string) => path.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export function googleBody(error: AppError): GoogleError {
  const details: Array<Record<string, unknown>> = [];
  if (error.param && error.status === 400) {
    details.push({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: snake(error.param), description: error.message }],
    });
  }
  if (error.upstreamCode || error.status === 402) {
    details.push({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: error.status === 402 ? 'INSUFFICIENT_BALANCE' : error.upstreamCode,
      domain: 'relay',
    });
  }
  if (error.retryAfterMs !== undefined) {
    details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${error.retryAfterMs / 1000}s` });
  }
  return {
    error: {
      code: error.status,
      message: error.message,
      status: GOOGLE_STATUS[error.status] ?? (error.status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION'),
      ...(details.length ? { details } : {}),
    },
  };
}

const DEFAULT_RETRY_AFTER_MS = 2_000;

/**
 * Writes the error with the headers clients retry by: Retry-After and retry-after-ms on
 * 429/503, and x-should-retry so the OpenAI SDK neither gives up on a transient error nor
 * repeats paid work that cannot succeed.
 */
export function sendError(res: Response, error: AppError, dialect: Dialect) {
  if (res.headersSent) return void res.destroy();
  // a 429 or 503 always says when to come back
  const retryAfterMs = error.retryAfterMs ?? (error.status === 429 || error.status === 503 ? DEFAULT_RETRY_AFTER_MS : undefined);
  if (retryAfterMs !== undefined) {
    res.set('Retry-After', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
    res.set('retry-after-ms', String(Math.max(0, Math.round(retryAfterMs))));
  }
  if (error.status >= 500 || error.status === 409 || error.status === 429) {
    res.set('x-should-retry', String(error.retryable));
  }
  res.status(error.status).json(dialect === 'openai' ? openAIBody(error) : googleBody(error));
}
