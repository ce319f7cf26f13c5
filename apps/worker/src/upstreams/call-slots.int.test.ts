import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startRedis, uniqueName, type RedisHandle } from '@relay/testkit';
import { createCallSlots } from './call-slots.js';

let handle: RedisHandle;
const connections: Redis[] = [];
const connect = () => {
  const redis = new Redis(handle.url);
  connections.push(redis);
  return redis;
};
beforeAll(async () => {
  handle = await startRedis();
});
afterAll(async () => {
  for (const c of connections) c.disconnect();
  await handle?.stop();
});

test('two processes sharing 3 slots never run more than 3 calls at once, and every call runs', async () => {
  const key = uniqueName('slots');
  const a = createCallSlots(connect(), connect(), key, 3);
  const b = createCallSlots(connect(), connect(), key, 3);
  let running = 0;
  let peak = 0;
  const call = async () => {
    running += 1;
    peak = Math.max(peak, running);
    await sleep(30);
    running -= 1;
    return 'done';
  };
  const started = Date.now();
  const results = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 ? a : b).run(call)));
  expect(results).toEqual(Array(24).fill('done'));
  expect(peak).toBe(3);
  // 24 calls of 30 ms through 3 slots take at least 8 rounds; freed slots are taken at once
  expect(Date.now() - started).toBeGreaterThanOrEqual(8 * 30);
  expect(Date.now() - started).toBeLessThan(24 * 30);
});

test('a slot whose holder died is free again once its lease lapses', async () => {
  const key = uniqueName('slots');
  const redis = connect();
  await redis.zadd(key, Date.now() + 300, 'dead-worker-lease');
  const slots = createCallSlots(redis, connect(), key, 1);
  const started = Date.now();
  expect(await slots.run(async () => 'ran')).toBe('ran');
  expect(Date.now() - started).toBeGreaterThanOrEqual(250);
});

test('a failing call gives its slot back', async () => {
  const key = uniqueName('slots');
  const slots = createCallSlots(connect(), connect(), key, 1);
  await expect(slots.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  expect(await slots.run(async () => 'next')).toBe('next');
});
