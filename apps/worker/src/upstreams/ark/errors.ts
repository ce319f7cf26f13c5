import { kindOfStatus, parseRetryAfter, UpstreamError, type UpstreamErrorKind } from '../upstream-error.js';
import { arkErrorSchema } from './schema.js';

const MODERATION = /Sensitive|Risk/;

export const isModerationCode = (code: string | undefined) => !!code && MODERATION.test(code);

/** Ark's error body keeps the vendor's code; moderation and parameter refusals keep it for the client. */
export function toUpstreamError(status: number, body: unknown, retryAfter: string | null): UpstreamError {
  const parsed = arkErrorSchema.safeParse(body);
  const code = parsed.success ? parsed.data.error.code : undefined;
  const message = parsed.success ? parsed.data.error.message : `upstream answered HTTP ${status}`;
  const param = parsed.success && parsed.data.error.param ? parsed.data.error.param : undefined;
  return new UpstreamError(kindOfStatus(status), message, {
    status,
    code,
    param,
    retryAfterMs: parseRetryAfter(retryAfter),
    moderation: isModerationCode(code),
  });
}

const REFUSAL = /^(InvalidParameter|MissingParameter|InvalidImageURL|BadRequest)/;
const LIMIT = /RateLimit|QuotaExceeded|ServerOverloaded|RequestBurstTooFast|InflightBatchsizeExceeded|SetLimitExceeded/;

/**
 * The kind an Ark error code means when no HTTP status says it: an `error` event inside a
 * stream that already answered 200 (the vendor documents one, example code `BadRequest`).
 */
export function kindOfArkCode(code: string): UpstreamErrorKind {
  if (isModerationCode(code) || REFUSAL.test(code)) return 'refused';
  if (LIMIT.test(code)) return 'rate-limited';
  return 'transient';
}
