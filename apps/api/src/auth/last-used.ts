import type { Redis } from 'ioredis';

/** How often one api process records that a key was used. */
export const LAST_USED_EVERY_MS = 60_000;
/** Past this many remembered keys, the ones not touched within the interval are forgotten. */
const MAX_REMEMBERED = 10_000;

/**
 * Records a key's "last used" time cheaply: at most one Redis write per key per minute per api
 * process, sent without waiting (a lost write only makes the time a minute older).
 */
export function createLastUsed(redis: Redis, keyOf: (keyId: string) => string, everyMs = LAST_USED_EVERY_MS) {
  const written = new Map<string, number>();
  return {
    touch(keyId: string, now = Date.now()) {
      const last = written.get(keyId);
      if (last !== undefined && now - last < everyMs) return;
      if (written.size >= MAX_REMEMBERED) {
        for (const [id, at] of written) if (now - at >= everyMs) written.delete(id);
      }
      written.set(keyId, now);
      redis.hset(keyOf(keyId), 'lastUsedAt', now).catch(() => written.delete(keyId));
    },
  };
}
