import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { luaCommand } from '@relay/core';
import claimLua from './lua/claim.lua';

export type Claim = { kind: 'fresh'; jobId: string } | { kind: 'existing'; jobId: string; claimedAt: number } | { kind: 'conflict' };

/**
 * A stable fingerprint of what was asked: object keys sorted, so key order does not matter.
 * The canonical form is fed to the hash piece by piece (strings as they are, each after its
 * length), never built as one JSON text: an inline image of tens of megabytes is hashed once,
 * not copied and escaped first. Validated bodies are shallow (the shape pre-scan bounds them).
 */
export function fingerprint(route: string, body: unknown): string {
  const hash = createHash('sha256').update(route).update('\n');
  const feed = (value: unknown): void => {
    if (typeof value === 'string') {
      hash.update(`s${value.length}:`).update(value);
    } else if (Array.isArray(value)) {
      hash.update(`a${value.length}[`);
      value.forEach(feed);
      hash.update(']');
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value).sort();
      hash.update(`o${keys.length}{`);
      for (const key of keys) {
        feed(key);
        feed((value as Record<string, unknown>)[key]);
      }
      hash.update('}');
    } else {
      hash.update(`${typeof value}:${String(value)};`);
    }
  };
  feed(body);
  return hash.digest('hex');
}

const claimScript = luaCommand({
  name: 'api.idempotency-claim',
  lua: claimLua,
  keys: ['record'],
  args: ['fingerprint', 'jobId', 'ttlSeconds', 'now'],
  reply: z.union([
    z.tuple([z.literal('conflict'), z.literal(''), z.literal('')]).transform(([kind]): Claim => ({ kind })),
    z
      .tuple([z.literal(['fresh', 'existing']), z.string(), z.string()])
      .transform(([kind, jobId, at]): Claim => (kind === 'existing' ? { kind, jobId, claimedAt: Number(at) } : { kind, jobId })),
  ]),
});

/**
 * Idempotency-Key per account: the first request with a key names the job; a repeat with the
 * same body gets that job (its answer replayed), one with another body a conflict. The record
 * is dropped when the first request fails before its job is queued, so a retry starts afresh.
 */
export function createIdempotency(redis: Redis, prefix: string, ttlSeconds: number) {
  const keyOf = (accountId: string, idempotencyKey: string) =>
    `${prefix}:idem:${accountId}:${createHash('sha256').update(idempotencyKey).digest('hex')}`;
  return {
    async claim(accountId: string, idempotencyKey: string, print: string, jobId: string): Promise<Claim> {
      return claimScript(redis, { record: keyOf(accountId, idempotencyKey) }, { fingerprint: print, jobId, ttlSeconds, now: Date.now() });
    },
    /** Drops the record if it still names `jobId` (the job never made it into the queue). */
    async forget(accountId: string, idempotencyKey: string, jobId: string) {
      const key = keyOf(accountId, idempotencyKey);
      if ((await redis.hget(key, 'jobId')) === jobId) await redis.del(key);
    },
    async stillNames(accountId: string, idempotencyKey: string, jobId: string) {
      return (await redis.hget(keyOf(accountId, idempotencyKey), 'jobId')) === jobId;
    },
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
