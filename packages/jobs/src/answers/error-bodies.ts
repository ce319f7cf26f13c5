import type { AppError } from '@relay/core';
import type { GoogleError } from './google.js';
import type { OpenAIError } from './openai.js';

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

/** The error body an endpoint of this dialect answers with (the batch output uses it too). */
export const errorBody = (dialect: Dialect, error: AppError) => (dialect === 'openai' ? openAIBody(error) : googleBody(error));
