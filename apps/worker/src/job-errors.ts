import { RateLimitError, UnrecoverableError, type Queue } from 'bullmq';
import { AppError, encodeFailure } from '@relay/core';
import { UpstreamError } from './upstreams/upstream-error.js';

/** The job's client left before its upstream call began: nothing was charged, nothing is retried. */
export const cancelled = () => new AppError('cancelled', 'the job was cancelled before it started; nothing was charged', { retryable: false });

export interface FailureContext {
  queue: Queue;
  attempt: number;
  attempts: number;
  rateLimit: { defaultMs: number; maxMs: number };
}

/**
 * Turns anything a processor threw into what BullMQ should do, with the AppError the API will
 * render encoded in the message (BullMQ keeps only that as failedReason):
 * - rate-limited: pause the whole queue and requeue the job without spending an attempt;
 * - refused / misconfigured: UnrecoverableError, no retry;
 * - everything else: a plain Error, retried with backoff until attempts run out.
 */
export async function toJobError(error: unknown, ctx: FailureContext): Promise<Error> {
  if (error instanceof UpstreamError) {
    const { status, code, param, retryAfterMs } = error.details;
    switch (error.kind) {
      case 'rate-limited': {
        const delay = Math.min(retryAfterMs ?? ctx.rateLimit.defaultMs, ctx.rateLimit.maxMs);
        await ctx.queue.rateLimit(delay);
        return new RateLimitError();
      }
      case 'refused':
        return new UnrecoverableError(
          encodeFailure(
            new AppError(error.details.moderation ? 'content_rejected' : 'upstream_rejected', error.message, {
              upstreamCode: code,
              param,
            }),
          ),
        );
      case 'misconfigured':
        return new UnrecoverableError(
          encodeFailure(
            new AppError('upstream_misconfigured', `the upstream refused the relay itself (HTTP ${status}${code ? ` ${code}` : ''}); contact the relay's operator`),
          ),
        );
      case 'unusable':
        return new UnrecoverableError(encodeFailure(new AppError('upstream_failed', error.message)));
      case 'transient':
        return new Error(
          encodeFailure(new AppError('upstream_failed', `upstream failed after ${ctx.attempt} of ${ctx.attempts} attempts: ${error.message}`)),
        );
    }
  }
  if (error instanceof AppError) {
    const encoded = encodeFailure(error);
    return error.retryable ? new Error(encoded) : new UnrecoverableError(encoded);
  }
  return new Error(encodeFailure(new AppError('internal', `the worker failed: ${(error as Error)?.message ?? String(error)}`)));
}
