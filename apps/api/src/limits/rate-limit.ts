import type { NextFunction, Request, Response } from 'express';
import type { Redis } from 'ioredis';
import { AppError, evalScript } from '@relay/core';

/**
 * Per-key request rate, as a GCRA token bucket in Redis: `limit` requests may come at once,
 * then one more every 60/limit seconds. Redis's own clock decides, so every api process
 * sharing the Redis shares the limit. Returns 0 when allowed, else the ms until a retry fits.
 */
const GCRA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local next_tat = tat + interval
local allow_at = next_tat - interval * burst
if allow_at > now then return math.ceil(allow_at - now) end
redis.call('SET', KEYS[1], tostring(next_tat), 'PX', math.ceil(next_tat - now))
return 0
`;

export interface RateLimitBucket {
  /** What the bucket counts, in its key and its error message. */
  name: 'requests' | 'reads';
  /** Requests per minute of a key without its own limit (0 = none). */
  defaultPerMinute: number;
  /** This bucket's limit as a multiple of the key's request limit (reads are cheaper, and polled). */
  multiplier: number;
}

export function rateLimit(redis: Redis, prefix: string, bucket: RateLimitBucket) {
  const keyOf = (keyId: string) =>
    bucket.name === 'requests' ? `${prefix}:ratelimit:${keyId}` : `${prefix}:ratelimit:${bucket.name}:${keyId}`;
  return async (_req: Request, res: Response, next: NextFunction) => {
    const caller = res.locals.caller!;
    const limit = (caller.rateLimitPerMinute ?? bucket.defaultPerMinute) * bucket.multiplier;
    if (limit <= 0) return next();
    const waitMs = Number(await evalScript(redis, GCRA, 1, keyOf(caller.keyId), 60_000 / limit, limit));
    if (waitMs > 0) {
      throw new AppError(
        'rate_limited',
        `rate limit of ${limit} ${bucket.name} per minute exceeded for this key; retry in ${Math.ceil(waitMs / 1000)} s`,
        {
          retryAfterMs: waitMs,
        },
      );
    }
    next();
  };
}
