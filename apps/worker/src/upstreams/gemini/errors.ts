import { sanitizeVendorText } from '../sanitize.js';
import { kindOfStatus, UpstreamError, type UpstreamErrorKind } from '../upstream-error.js';
import { geminiErrorSchema } from './schema.js';

type Details = Array<Record<string, unknown>>;
const detail = (details: Details | undefined, type: string) => details?.find((d) => String(d['@type']).endsWith(type));

/** Gemini's RetryInfo.retryDelay, a protobuf Duration such as "38s" or "45.837906927s". */
function retryDelayMs(details: Details | undefined): number | undefined {
  const delay = detail(details, 'google.rpc.RetryInfo')?.retryDelay;
  const seconds = typeof delay === 'string' ? Number.parseFloat(delay) : Number.NaN;
  return Number.isFinite(seconds) ? seconds * 1000 : undefined;
}

/** The quotas a 429 names (QuotaFailure.violations): `quotaId` says per minute or per day, `quotaValue` how many. */
function violations(details: Details | undefined): Array<{ quotaId: string; quotaValue: string }> {
  const list: unknown = detail(details, 'google.rpc.QuotaFailure')?.violations;
  const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');
  return Array.isArray(list)
    ? list.map((v: { quotaId?: unknown; quotaValue?: unknown }) => ({ quotaId: text(v.quotaId), quotaValue: text(v.quotaValue) }))
    : [];
}

const PACIFIC = 'America/Los_Angeles';

/** The zone's offset from UTC at `ms`, in minutes ("GMT-08:00" -> -480). */
function pacificOffsetMinutes(ms: number): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: PACIFIC, timeZoneName: 'longOffset' })
    .formatToParts(ms)
    .find((part) => part.type === 'timeZoneName')?.value;
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name ?? '');
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

/** The next midnight in America/Los_Angeles: Gemini's per-day quotas reset then (its rate-limits page). */
export function nextPacificMidnight(now = Date.now()): number {
  const [y, m, d] = new Intl.DateTimeFormat('en-CA', { timeZone: PACIFIC }).format(now).split('-').map(Number) as [number, number, number];
  const midnightUtc = Date.UTC(y, m - 1, d + 1);
  // summer time changes at 2 am, so midnight has the offset of the evening before it
  return midnightUtc - pacificOffsetMinutes(midnightUtc - pacificOffsetMinutes(now) * 60_000 - 60_000) * 60_000;
}

/**
 * A 429 is a rest only when the quota it names refills within minutes. A per-day quota, or a
 * quota of 0 (the model is not on the project's tier), carries a RetryInfo of seconds that
 * misleads: waiting that long and asking again only meets the same 429 until the day's reset.
 */
function quotaKind(details: Details | undefined): { kind: UpstreamErrorKind; untilMs?: number } {
  const named = violations(details);
  if (named.some((v) => v.quotaValue === '0')) return { kind: 'quota-exhausted' };
  if (named.some((v) => /PerDay/i.test(v.quotaId))) return { kind: 'quota-exhausted', untilMs: nextPacificMidnight() };
  return { kind: 'rate-limited' };
}

/** Google's rejection of a text that a speech model read as a request to write text. */
export const TEXT_INSTEAD_OF_AUDIO = /model tried to generate text/i;

/**
 * Gemini's error body as what the relay does about it. A bad key is the relay's (400
 * API_KEY_INVALID, FAILED_PRECONDITION for billing or region), not the caller's fault.
 */
export function toUpstreamError(status: number, body: unknown, secret?: string): UpstreamError {
  const parsed = geminiErrorSchema.safeParse(body);
  const error = parsed.success ? parsed.data.error : { message: '', status: undefined, details: undefined };
  const message = error.message ? sanitizeVendorText(error.message, secret ? [secret] : []) : `upstream answered HTTP ${status}`;
  const reasons = (error.details ?? []).map((d) => d.reason);
  const retryAfterMs = retryDelayMs(error.details);
  if (reasons.includes('API_KEY_INVALID') || error.status === 'FAILED_PRECONDITION')
    return new UpstreamError('misconfigured', message, { status, code: error.status });
  if (status === 429 || error.status === 'RESOURCE_EXHAUSTED') {
    const { kind, untilMs } = quotaKind(error.details);
    return new UpstreamError(kind, message, { status, code: error.status, retryAfterMs, untilMs });
  }
  if (status === 400 && TEXT_INSTEAD_OF_AUDIO.test(error.message))
    return new UpstreamError('transient', message, { status, code: 'TEXT_INSTEAD_OF_AUDIO' });
  return new UpstreamError(kindOfStatus(status), message, { status, code: error.status, retryAfterMs });
}
