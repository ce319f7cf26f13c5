import { AppError, errorStatus, type ErrorCode } from './app-error.js';

/**
 * BullMQ keeps only an error's message as `failedReason`, so the worker encodes the
 * AppError there as JSON and the API decodes it back into the same error.
 */
const marker = 'relay-error:';

export function encodeFailure(error: AppError): string {
  return (
    marker +
    JSON.stringify({
      code: error.code,
      message: error.message,
      status: error.status,
      param: error.param,
      upstreamCode: error.upstreamCode,
      retryable: error.retryable,
      retryAfterMs: error.retryAfterMs,
    })
  );
}

/** Any reason that is not an encoded AppError (a crash, a stalled job) is an internal error. */
export function decodeFailure(reason: string | undefined): AppError {
  if (reason?.startsWith(marker)) {
    try {
      const data = JSON.parse(reason.slice(marker.length)) as Record<string, unknown>;
      const code = data.code as ErrorCode;
      if (typeof code === 'string' && Object.hasOwn(errorStatus, code) && typeof data.message === 'string') {
        return new AppError(code, data.message, {
          status: typeof data.status === 'number' ? data.status : undefined,
          param: typeof data.param === 'string' ? data.param : undefined,
          upstreamCode: typeof data.upstreamCode === 'string' ? data.upstreamCode : undefined,
          retryable: data.retryable === true,
          retryAfterMs: typeof data.retryAfterMs === 'number' ? data.retryAfterMs : undefined,
        });
      }
    } catch {
      // fall through: a truncated or foreign reason is treated as unknown
    }
  }
  return new AppError('internal', 'the job failed unexpectedly', { cause: reason });
}
