import { sanitizeVendorText } from './sanitize.js';

/**
 * Upstream failures, normalised at the adapter edge into what the relay does about them. Each
 * vendor folder maps its own codes to these first and falls back to the HTTP status:
 * - transient: 5xx, timeouts, resets, answers without the goods -> retry with backoff
 * - rate-limited: a short limit (per minute, overload) -> the channel rests as told, no attempt spent
 * - quota-exhausted: a quota or spend cap that no short rest lifts (per day, per month, the
 *   account's cap, an overdue account) -> the channel is `exhausted` until the vendor's reset (or
 *   an operator clears it), other channels take over, and with none left the job fails at once
 * - refused: the upstream rejected this request (moderation, a parameter) -> fail, keep its code
 * - misconfigured: the relay's key or model mapping is wrong (401/403/404) -> fail, operator's problem
 * - unusable: a success answer that can never be used -> fail, 502
 */
export type UpstreamErrorKind = 'transient' | 'rate-limited' | 'quota-exhausted' | 'refused' | 'misconfigured' | 'unusable';

export interface UpstreamErrorDetails {
  status?: number;
  code?: string;
  param?: string;
  retryAfterMs?: number;
  /** quota-exhausted: epoch ms when the vendor says the quota resets, where it says so. */
  untilMs?: number;
  /** A refusal of the content itself (moderation), as opposed to a bad parameter. */
  moderation?: boolean;
}

export class UpstreamError extends Error {
  override name = 'UpstreamError';
  /** `message` is vendor text: it is sanitised here, before a client, a log line or Redis sees it. */
  constructor(
    readonly kind: UpstreamErrorKind,
    message: string,
    readonly details: UpstreamErrorDetails = {},
  ) {
    super(sanitizeVendorText(message));
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
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The class an operator reads on a metric: the kind, with refusals split into content and parameters, and auth apart. */
export function errorClass(error: UpstreamError): string {
  const { kind, details } = error;
  if (kind === 'refused') return details.moderation ? 'content_refused' : 'bad_request';
  if (kind === 'misconfigured' && (details.status === 401 || details.status === 403)) return 'auth';
  return kind.replace('-', '_');
}
