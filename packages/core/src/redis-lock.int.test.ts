import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startRedis, waitFor } from '@relay/testkit';
import { acquireLock, withLock } from './redis-lock.js';

let redis: Redis;
let stop: () => Promise<void>;
beforeAll(async () => {
  const handle = await startRedis();
  redis = new Redis(handle.url);
  stop = handle.stop;
});
afterAll(async () => {
  redis?.disconnect();
  await stop?.();
});

const lockKey = () => `test:lock:${randomUUID()}`;

test('one holder at a time; the lock carries its TTL and is gone once released', async () => {
  const key = lockKey();
  const lock = await acquireLock(redis, key, 60_000);
  expect(lock).toBeDefined();
  expect(await acquireLock(redis, key, 60_000)).toBeUndefined();
  expect(await redis.get(key)).toBe(lock!.token);
  expect(await redis.pttl(key)).toBeGreaterThan(50_000);
  expect(await lock!.release()).toBe(true);
  expect(await redis.exists(key)).toBe(0);
  expect(await acquireLock(redis, key, 60_000)).toBeDefined();
});

test('a holder whose lock lapsed and was taken neither extends nor releases the new holder', async () => {
  const key = lockKey();
  const stale = (await acquireLock(redis, key, 60_000))!;
  await redis.del(key); // as if its TTL ran out
  const current = (await acquireLock(redis, key, 1_000))!;
  expect(await stale.extend(60_000)).toBe(false);
  expect(await stale.release()).toBe(false);
  expect(await redis.get(key)).toBe(current.token);
  expect(await current.extend(60_000)).toBe(true);
  expect(await redis.pttl(key)).toBeGreaterThan(50_000);
});

test('withLock runs the work while holding the lock and lets go after, even when the work throws', async () => {
  const key = lockKey();
  const held = await withLock(redis, key, 60_000, async () => {
    expect(await acquireLock(redis, key, 60_000)).toBeUndefined();
    return 'done';
  });
  expect(held).toEqual({ held: true, value: 'done' });
  expect(await redis.exists(key)).toBe(0);

  await expect(withLock(redis, key, 60_000, () => Promise.reject(new Error('step failed')))).rejects.toThrow('step failed');
  expect(await redis.exists(key)).toBe(0);

  const other = (await acquireLock(redis, key, 60_000))!;
  expect(await withLock(redis, key, 60_000, () => Promise.resolve('never'))).toEqual({ held: false });
  expect(await redis.get(key)).toBe(other.token);
});

test('withLock keeps extending the lock while the work runs', async () => {
  const key = lockKey();
  // a 3 s TTL is extended every second: the work ends once the key's own TTL was seen going up
  await withLock(redis, key, 3_000, async () => {
    let lowest = Infinity;
    await waitFor(
      async () => {
        const ttl = await redis.pttl(key);
        if (ttl <= 0) throw new Error('the lock was lost');
        if (ttl > lowest) return true;
        lowest = ttl;
        return false;
      },
      30_000,
      'an extension of the lock',
    );
    expect(await redis.get(key)).not.toBeNull();
  });
});
