/**
 * Upstream failures, normalised at the adapter edge into what the relay does about them:
 * - transient: 5xx, timeouts, resets, unusable answers -> retry with backoff
 * - rate-limited: 429 -> pause the queue for `retryAfterMs`, no attempt spent
 * - refused: the upstream rejected this request (moderation, a parameter) -> fail, keep its code
 * - misconfigured: the relay's key or model mapping is wrong (401/403/404) -> fail, operator's problem
 * - unusable: a success answer without the goods (Gemini's 200 with no audio) -> fail, 502
 */
export type UpstreamErrorKind = 'transient' | 'rate-limited' | 'refused' | 'misconfigured' | 'unusable';

export class UpstreamError extends Error {
  override name = 'UpstreamError';
  constructor(
    readonly kind: UpstreamErrorKind,
    message: string,
    readonly details: {
      status?: number;
      code?: string;
      param?: string;
      retryAfterMs?: number;
      /** A refusal of the content itself (moderation), as opposed to a bad parameter. */
      moderation?: boolean;
    } = {},
  ) {
    super(message);
  }
}

/** The kind an HTTP status maps to when the body says nothing more specific. */
export function kindOfStatus(status: number): UpstreamErrorKind {
  if (status === 429) return 'rate-limited';
  if (status === 401 || status === 403 || status === 404) return 'misconfigured';
  if (status >= 400 && status < 500 && status !== 408) return 'refused';
  return 'transient';
}

/** Retry-After as seconds or an HTTP date, in milliseconds. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
