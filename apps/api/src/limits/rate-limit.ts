import type { NextFunction, Request, Response } from 'express';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { AppError, luaCommand } from '@relay/core';
import gcraLua from './lua/gcra.lua';

/**
 * Per-key request rate, as a GCRA token bucket in Redis (lua/gcra.lua): the ms until a retry fits,
 * 0 when the request may go.
 */
const gcraScript = luaCommand({
  name: 'api.gcra',
  lua: gcraLua,
  keys: ['bucket'],
  args: ['intervalMs', 'burst'],
  reply: z.number().int().min(0),
});

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
    const waitMs = await gcraScript(redis, { bucket: keyOf(caller.keyId) }, { intervalMs: 60_000 / limit, burst: limit });
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
