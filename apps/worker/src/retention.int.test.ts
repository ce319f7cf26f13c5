import { PutObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { Redis } from 'ioredis';
import { afterAll, expect, test } from 'vitest';
import { createBlobStore, createLogger, ensureBucket } from '@relay/core';
import { startRedis, startS3, uniqueName } from '@relay/testkit';
import { startRetention, sweepPrefix } from './retention.js';

/** Against the S3 server the tests use (s3rver unless S3_ENDPOINT names another): the sweep is plain S3 calls. */
const s3 = await startS3();
const redisHandle = await startRedis();
const redis = new Redis(redisHandle.url);
const store = createBlobStore({ ...s3.env, S3_BUCKET: uniqueName('retention').toLowerCase().slice(0, 60), S3_FORCE_PATH_STYLE: true });
await ensureBucket(store);
afterAll(async () => {
  redis.disconnect();
  await redisHandle.close();
  await s3.close();
});

const put = (key: string) =>
  store.client.send(new PutObjectCommand({ Bucket: store.bucket, Key: key, Body: 'x', ContentType: 'text/plain' }));
const keys = async () =>
  ((await store.client.send(new ListObjectsV2Command({ Bucket: store.bucket }))).Contents ?? []).map((o) => o.Key).sort();
const DAY = 86_400_000;

test('a sweep deletes what is older than its age under its prefix and nothing else, across pages', async () => {
  for (let i = 0; i < 1_005; i++) await put(`files/img_${String(i).padStart(6, '0')}-0.jpeg`);
  await put('inputs/img_000001/0.png');
  await put('other/keep.txt');
  // the objects were written now: as seen 3 days later they are 3 days old
  expect(await sweepPrefix(store, 'files/', new Date(Date.now() - 5 * DAY))).toBe(0);
  expect(await sweepPrefix(store, 'files/', new Date(Date.now() + 3 * DAY - 2 * DAY))).toBe(1_005);
  expect(await keys()).toEqual(['inputs/img_000001/0.png', 'other/keep.txt']);
});

test('the retention job sweeps files and inputs by their own ages, one worker per round', async () => {
  await sweepPrefix(store, '', new Date(Date.now() + DAY)); // an empty bucket to start from
  await put('files/img_a-0.jpeg');
  await put('inputs/img_a/0.png');
  const deleted: Record<string, number> = {};
  const settings = { filesDays: 30, inputsDays: 2, everyMs: 3_600_000 };
  const lock = uniqueName('retention-lock');
  const a = startRetention(
    store,
    redis,
    lock,
    settings,
    createLogger('test', 'silent'),
    (prefix, n) => (deleted[prefix] = (deleted[prefix] ?? 0) + n),
  );
  const b = startRetention(store, redis, lock, settings, createLogger('test', 'silent'), () =>
    expect.unreachable('the lock holder sweeps alone'),
  );
  try {
    await a.sweep(Date.now() + 3 * DAY); // inputs are past 2 days, files not past 30
    await b.sweep(Date.now() + 40 * DAY); // same round: the lock is held, nothing happens
    expect(deleted).toEqual({ 'inputs/': 1 });
    expect(await keys()).toContain('files/img_a-0.jpeg');
    await redis.del(lock);
    await a.sweep(Date.now() + 31 * DAY);
    expect(deleted).toEqual({ 'inputs/': 1, 'files/': 1 });
    expect(await keys()).toEqual([]);
  } finally {
    a.stop();
    b.stop();
  }
});
