import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startRedis, uniqueName, waitFor, type RedisHandle } from '@relay/testkit';
import { createLastUsed } from './last-used.js';

let handle: RedisHandle;
let redis: Redis;
beforeAll(async () => {
  handle = await startRedis();
  redis = new Redis(handle.url);
});
afterAll(async () => {
  redis?.disconnect();
  await handle?.close();
});

test('a key in use is written at most once a minute by a process', async () => {
  const prefix = uniqueName('lastused');
  const keyOf = (id: string) => `${prefix}:key:${id}`;
  const lastUsed = createLastUsed(redis, keyOf, 60_000);
  lastUsed.touch('key_a', 1_000);
  await waitFor(() => redis.hget(keyOf('key_a'), 'lastUsedAt'));
  expect(await redis.hget(keyOf('key_a'), 'lastUsedAt')).toBe('1000');
  for (let t = 1_001; t < 61_000; t += 5_000) lastUsed.touch('key_a', t);
  lastUsed.touch('key_b', 2_000);
  await waitFor(() => redis.hget(keyOf('key_b'), 'lastUsedAt'));
  // the commands go out in order: key_b's write arrived, and key_a's value never moved
  expect(await redis.hget(keyOf('key_a'), 'lastUsedAt')).toBe('1000');
  lastUsed.touch('key_a', 61_000);
  await waitFor(async () => (await redis.hget(keyOf('key_a'), 'lastUsedAt')) === '61000');
});
