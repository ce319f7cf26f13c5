import { sanitizeVendorText } from '../sanitize.js';
import { kindOfStatus, parseRetryAfter, UpstreamError, type UpstreamErrorKind } from '../upstream-error.js';
import { arkErrorSchema } from './schema.js';

const MODERATION = /Sensitive|Risk/;
export const isModerationCode = (code: string | undefined) => !!code && MODERATION.test(code);

/**
 * Ark's codes (ModelArk's error-code table; recorded answers in the vendor fixtures), first match
 * wins. Quota is not a rate limit: the account's spend cap (`SetLimitExceeded`, lifted only by an
 * operator), a monthly or free-trial quota (`AccountQuotaExceeded`, `QuotaExceeded`: reset hours
 * away, named only in the message) and an overdue account end calls until someone acts.
 */
const CODES: Array<[RegExp, UpstreamErrorKind]> = [
  [/^(SetLimitExceeded|AccountQuotaExceeded|QuotaExceeded|AccountOverdueError|OperationDenied\.ServiceOverdue)\b/, 'quota-exhausted'],
  [/RateLimitExceeded|ServerOverloaded|RequestBurstTooFast|InflightBatchsizeExceeded/, 'rate-limited'],
  [/^(AuthenticationError|AccessDenied|OperationDenied|InvalidEndpointOrModel|ModelNotOpen|InvalidEndpoint)\b/, 'misconfigured'],
  [/^(InvalidParameter|MissingParameter|InvalidImageURL|BadRequest)\b/, 'refused'],
  [MODERATION, 'refused'],
  [/^Internal/, 'transient'],
];

const kindOfCode = (code: string | undefined): UpstreamErrorKind | undefined =>
  code === undefined ? undefined : CODES.find(([pattern]) => pattern.test(code))?.[1];

/** The kind an Ark error code means when no HTTP status says it (an `error` event inside a stream). */
export const kindOfArkCode = (code: string): UpstreamErrorKind => kindOfCode(code) ?? 'transient';

/** "It will reset at 2026-04-14 23:59:59 +0800 CST": Ark names a quota's reset only in its message. */
export function resetNamedIn(message: string): number | undefined {
  const m = /reset (?:at|on) (\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2}) ?([+-]\d{2}):?(\d{2})/i.exec(message);
  if (!m) return undefined;
  const at = Date.parse(`${m[1]}T${m[2]}${m[3]}:${m[4]}`);
  return Number.isNaN(at) ? undefined : at;
}

/** Ark's error body as what the relay does about it: the vendor's code decides, the status when the code is unknown. */
export function toUpstreamError(status: number, body: unknown, retryAfter: string | null, secret?: string): UpstreamError {
  const parsed = arkErrorSchema.safeParse(body);
  const code = parsed.success ? parsed.data.error.code : undefined;
  const text = parsed.success ? parsed.data.error.message : '';
  const message = text ? sanitizeVendorText(text, secret ? [secret] : []) : `upstream answered HTTP ${status}`;
  const param = parsed.success && parsed.data.error.param ? parsed.data.error.param : undefined;
  const byCode = kindOfCode(code);
  // an overload said with a 5xx (ServerOverloaded is a 429 in the vendor's table) is retried as a 5xx is
  const kind = byCode === 'rate-limited' && status >= 500 ? 'transient' : (byCode ?? (status === 200 ? 'transient' : kindOfStatus(status)));
  return new UpstreamError(kind, message, {
    status,
    code,
    param,
    retryAfterMs: parseRetryAfter(retryAfter),
    ...(kind === 'quota-exhausted' ? { untilMs: resetNamedIn(text) } : {}),
    moderation: isModerationCode(code),
  });
}
