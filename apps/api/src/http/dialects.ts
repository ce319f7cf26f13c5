import type { Response } from 'express';
import type { AppError } from '@relay/core';
import { errorBody, type Dialect } from '@relay/jobs';

export type { Dialect };

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
  res.status(error.status).json(errorBody(dialect, error));
}
