import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { ChannelsCooling } from '@relay/channels';
import { AppError, encodeFailure } from '@relay/core';
import { UpstreamError } from './upstreams/upstream-error.js';
import { EXHAUSTED_PROBE_MS } from './channels/upstream-calls.js';

export interface FailureContext {
  job: Job;
  /** The worker's lock token on the job (moving it to delayed needs it). */
  token: string | undefined;
  attempt: number;
  attempts: number;
  rateLimit: { defaultMs: number; maxMs: number };
  /** How long a job may wait in all for a channel to take its call. */
  waitMaxMs: number;
  /** Whether its owner stopped the job meanwhile (then it is not put off: its next run ends it). */
  stopping: () => Promise<boolean>;
}

/**
 * Puts the job off without spending an attempt: every channel that serves it is cooling (429s,
 * open breakers). It waits in BullMQ's delayed set, not in a worker; past `tuning.worker.upstreamWaitMaxMs`
 * from its creation it fails with a 503 instead.
 */
async function putOff(ctx: FailureContext, wantedMs: number, why: string): Promise<Error> {
  // a stop that came while this run's calls were out: the next run, now, ends the job with what it has
  const delayMs = (await ctx.stopping()) ? 0 : wantedMs;
  const waited = Date.now() - ctx.job.timestamp;
  if (waited + delayMs > ctx.waitMaxMs) {
    return new UnrecoverableError(
      encodeFailure(
        new AppError(
          'unavailable',
          `no upstream channel could take this job for ${Math.round(waited / 1000)} s (${why}); try again later`,
          { retryAfterMs: 30_000 },
        ),
      ),
    );
  }
  await ctx.job.moveToDelayed(Date.now() + delayMs, ctx.token);
  return new DelayedError();
}

/**
 * Turns anything a processor threw into what BullMQ should do, with the AppError the API will
 * render encoded in the message (BullMQ keeps only that as failedReason):
 * - every channel cooling (rate-limited, ChannelsCooling): delay the job, no attempt spent;
 * - refused / misconfigured: UnrecoverableError, no retry;
 * - everything else: a plain Error, retried with backoff until attempts run out.
 */
export async function toJobError(error: unknown, ctx: FailureContext): Promise<Error> {
  if (error instanceof ChannelsCooling) return putOff(ctx, error.waitMs, 'every channel serving its model is cooling');
  if (error instanceof UpstreamError) {
    const { status, code, param, retryAfterMs } = error.details;
    switch (error.kind) {
      case 'rate-limited':
        return putOff(
          ctx,
          Math.min(retryAfterMs ?? ctx.rateLimit.defaultMs, ctx.rateLimit.maxMs),
          `the upstream answered 429: ${error.message}`,
        );
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
            new AppError(
              'upstream_misconfigured',
              `the upstream refused the relay itself (HTTP ${status}${code ? ` ${code}` : ''}); contact the relay's operator`,
            ),
          ),
        );
      case 'quota-exhausted': {
        // the vendor's own words (an account id, a console link) are the operator's: the log has them
        const until = error.details.untilMs;
        const resets = until !== undefined && until > Date.now() ? `; the vendor resets it at ${new Date(until).toISOString()}` : '';
        return new UnrecoverableError(
          encodeFailure(
            new AppError(
              'upstream_quota_exhausted',
              `the upstream vendor's quota or spend cap for this model is reached (${code ?? `HTTP ${status}`})${resets}; the relay's operator can see it on the channel`,
              { upstreamCode: code, retryAfterMs: until !== undefined && until > Date.now() ? until - Date.now() : EXHAUSTED_PROBE_MS },
            ),
          ),
        );
      }
      case 'unusable':
        return new UnrecoverableError(encodeFailure(new AppError('upstream_failed', error.message)));
      case 'transient':
        return new Error(
          encodeFailure(
            new AppError('upstream_failed', `upstream failed after ${ctx.attempt} of ${ctx.attempts} attempts: ${error.message}`),
          ),
        );
    }
  }
  if (error instanceof AppError) {
    const encoded = encodeFailure(error);
    return error.retryable ? new Error(encoded) : new UnrecoverableError(encoded);
  }
  return new Error(encodeFailure(new AppError('internal', `the worker failed: ${(error as Error)?.message ?? String(error)}`)));
}
