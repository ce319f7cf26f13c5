import { AppError, errorStatus, type ErrorCode } from './app-error.js';

/**
 * BullMQ keeps only an error's message as `failedReason`, so the worker encodes the
 * AppError there as JSON and the API decodes it back into the same error.
 */
const marker = 'relay-error:';

/** Failure texts live in Redis with the job: an upstream's long message must not come along whole. */
const MAX_MESSAGE_CHARS = 1_000;
const clip = (text: string) => (text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}...` : text);

export function encodeFailure(error: AppError): string {
  return (
    marker +
    JSON.stringify({
      code: error.code,
      message: clip(error.message),
      status: error.status,
      param: error.param && clip(error.param),
      upstreamCode: error.upstreamCode && clip(error.upstreamCode),
      retryable: error.retryable,
      retryAfterMs: error.retryAfterMs,
    })
  );
}

/**
 * What BullMQ itself writes as failedReason (never our processors): a job whose worker died
 * (stalled) more often than maxStalledCount, or that was started more than maxStartedAttempts.
 * Expected under crashes, not bugs: the client may simply try again.
 */
const INTERRUPTED = ['job stalled more than allowable limit', 'job started more than allowable limit'];

/** Whether BullMQ gave a job up because the workers running it kept stopping, not for anything the job did. */
export const isInterruption = (reason: string | undefined) => reason !== undefined && INTERRUPTED.includes(reason);

/** An encoded AppError, BullMQ's own reasons as 503s; anything else is a bug (500). */
export function decodeFailure(reason: string | undefined): AppError {
  if (isInterruption(reason)) {
    return new AppError(
      'unavailable',
      'the job was interrupted: the workers running it stopped before it finished; nothing was charged, try again',
      {
        retryAfterMs: 1_000,
        cause: reason,
      },
    );
  }
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
