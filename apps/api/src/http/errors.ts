import type { ErrorRequestHandler, Request, Response } from 'express';
import { AppError, isAppError, isRedisUnavailable, type Logger } from '@relay/core';
import { sendError, type Dialect } from './dialects.js';

/** body-parser's errors carry `type`; each becomes a clear client error instead of a 500. */
function fromParserError(error: { type?: string; status?: number; limit?: number; message: string }): AppError | undefined {
  switch (error.type) {
    case 'entity.parse.failed':
      return new AppError('invalid_json', `the request body is not valid JSON: ${error.message}`);
    case 'entity.too.large':
      return new AppError('payload_too_large', `the request body exceeds the limit of ${error.limit} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', error.message);
    default:
      // any other client error body-parser (http-errors) reports, such as broken gzip
      if (error.status && error.status >= 400 && error.status < 500) {
        return new AppError('invalid_request', `the request body could not be read: ${error.message}`, { status: error.status });
      }
      return undefined;
  }
}

export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  const parsed = fromParserError(error as { type?: string; message: string });
  if (parsed) return parsed;
  // Redis away, unreachable, loading or demoted (a failover): the caller should come back shortly
  if (isRedisUnavailable(error)) {
    return new AppError('unavailable', 'the relay cannot reach its queue right now; retry shortly', { retryAfterMs: 2_000, cause: error });
  }
  return new AppError('internal', 'internal error', { cause: error });
}

/**
 * Renders any error in the dialect of the route that took the request (res.locals.dialect), or,
 * for a request no route took, the dialect its path speaks; bugs are logged with the request id.
 * An app has one of these, last: every router's errors come to it.
 */
export function errorScope(log: Logger, dialectOf: (req: Request) => Dialect = () => 'openai'): ErrorRequestHandler {
  return (error: unknown, req: Request, res: Response, _next) => {
    const appError = toAppError(error);
    // a bug is an error; an outage the client is told to retry (502, 503) is only a warning
    if (appError.code === 'internal') {
      log.error({ err: appError.cause ?? appError, requestId: res.locals.requestId, path: req.path }, appError.message);
    } else if (appError.status >= 500) {
      log.warn({ err: (appError.cause as Error | undefined)?.message, requestId: res.locals.requestId, path: req.path }, appError.message);
    }
    if (appError.code === 'internal') {
      appError.message = `internal error (request id ${res.locals.requestId})`;
    }
    sendError(res, appError, res.locals.dialect ?? dialectOf(req));
  };
}
