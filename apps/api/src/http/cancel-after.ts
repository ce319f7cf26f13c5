import type { Request } from 'express';
import { AppError } from '@relay/core';

/** The longest deadline taken: a job waits a day at most (`tuning.api.jobKeepSeconds`' default) in any case. */
const MAX_MS = 24 * 60 * 60 * 1000;
const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Replicate's `Cancel-After` header: how long the job may wait to begin (`30s`, `5m`, `1h`,
 * `250ms`, or bare seconds, fractions allowed). Undefined without the header; a malformed or out
 * of range value is a 400 naming it.
 */
export function parseCancelAfter(req: Request): number | undefined {
  const value = req.get('cancel-after');
  if (value === undefined) return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(value);
  const ms = match ? Number(match[1]) * UNITS[(match[2] ?? 's').toLowerCase()]! : Number.NaN;
  if (!(ms > 0 && ms <= MAX_MS)) {
    throw new AppError(
      'invalid_request',
      `Cancel-After must be a duration up to 24h, such as 30s, 5m, 1h, 250ms or a number of seconds; got "${value.slice(0, 40)}"`,
      { param: 'Cancel-After' },
    );
  }
  return Math.round(ms);
}
