import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startRedis, uniqueName, type RedisHandle } from '@relay/testkit';
import { readTraffic } from './read-traffic.js';
import { createDoors } from '@relay/jobs';
import { loadCatalog } from '@relay/core';
import { bucketOf, createTrafficRecorder, minuteKey, RETENTION_HOURS, trafficGroups } from './traffic.js';

const groupOf = trafficGroups(createDoors(loadCatalog()).all);

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

test('only the public API is counted, in a fixed set of groups', () => {
  expect(groupOf('/v1/images/generations')).toBe('images');
  expect(groupOf('/v1beta/models/vendor-2.5-flash-preview-tts:generateContent')).toBe('speech');
  expect(groupOf('/v1/models/vendor-2.5-flash-preview-tts:streamGenerateContent')).toBe('speech');
  expect(groupOf('/v1beta/models/x:countTokens')).toBe('models');
  expect(groupOf('/v1/models')).toBe('models');
  expect(groupOf('/v1/jobs/abc')).toBe('jobs');
  expect(groupOf('/files/abc.png')).toBe('files');
  for (const path of ['/admin/accounts', '/console', '/docs', '/healthz', '/metrics', '/nope']) expect(groupOf(path)).toBeUndefined();
  expect([bucketOf(0), bucketOf(100), bucketOf(101), bucketOf(60_000), bucketOf(60_001)]).toEqual([0, 0, 1, 8, 9]);
});

test('answers add up in memory and reach Redis in one flush, summed across processes', async () => {
  const prefix = uniqueName('traffic');
  const now = Date.now();
  const [a, b] = [createTrafficRecorder(redis, prefix, 60_000, groupOf), createTrafficRecorder(redis, prefix, 60_000, groupOf)];
  for (let i = 0; i < 19; i += 1) a.record('images', 200, 80, now);
  a.record('images', 503, 40_000, now);
  b.record('speech', 400, 5, now);
  b.record('speech', 200, 3_000, now - 60_000);
  expect(await redis.exists(minuteKey(prefix, Math.floor(now / 60_000)))).toBe(0); // nothing written per request
  await Promise.all([a.close(), b.close()]);

  const traffic = await readTraffic(redis, prefix, 1, now);
  expect(traffic.minutes).toEqual([
    { at: (Math.floor(now / 60_000) - 1) * 60_000, requests: 1, clientErrors: 0, serverErrors: 0, avgMs: 3_000, p95Ms: 5_000 },
    {
      at: Math.floor(now / 60_000) * 60_000,
      requests: 21,
      clientErrors: 1,
      serverErrors: 1,
      avgMs: Math.round((19 * 80 + 40_000 + 5) / 21),
      p95Ms: 100,
    },
  ]);
  expect(traffic.byGroup.filter((g) => g.requests > 0)).toEqual([
    { group: 'images', requests: 20, errors: 1 },
    { group: 'speech', requests: 2, errors: 1 },
  ]);
  const ttl = await redis.ttl(minuteKey(prefix, Math.floor(now / 60_000)));
  expect(ttl).toBeGreaterThan(RETENTION_HOURS * 3_600 - 60);
  // older minutes than the window are left out
  expect((await readTraffic(redis, prefix, 1, now + 2 * 3_600_000)).minutes).toEqual([]);
});
