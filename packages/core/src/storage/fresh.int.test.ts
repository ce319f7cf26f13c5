import { Redis } from 'ioredis';
import { afterAll, expect, test } from 'vitest';
import { startLocalS3, startRedis, uniqueName } from '@relay/testkit';
import { runSteps } from '../lua-command.js';
import { createBlobStore, getObject, getObjectBuffer, putObject } from './s3.js';
import { FRESH_MAX_BYTES, FRESH_TTL_MS, freshKey, freshStep, withFreshFiles } from './fresh.js';

/** Fresh copies on a real Redis beside a real store: the answer's read takes the copy once, then the store answers. */
const redisHandle = await startRedis();
const redis = new Redis(redisHandle.url);
const s3 = await startLocalS3({ bucket: uniqueName('fresh').toLowerCase() });
const store = createBlobStore({ ...s3.env, S3_FORCE_PATH_STYLE: true });
afterAll(async () => {
  redis.disconnect();
  await Promise.all([redisHandle.close(), s3.close()]);
});

const bytes = (text: string) => Buffer.from(text);

test("a file's fresh copy is read instead of the store's, once: then the store answers", async () => {
  const prefix = uniqueName('fresh');
  const key = `files/${uniqueName('clip')}.wav`;
  // the store's copy differs from the fresh one here, so the test sees which was read
  await putObject(store, key, bytes('stored'), { contentType: 'audio/wav' });
  const [left] = await runSteps(redis, [freshStep(prefix, { key, bytes: bytes('fresh\nwith a newline'), contentType: 'audio/wav' })!]);
  expect(left).toEqual({ ok: true, value: 1 });
  const ttl = await redis.pttl(freshKey(prefix, key));
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(FRESH_TTL_MS);

  const answering = withFreshFiles(store, redis, prefix);
  expect((await getObjectBuffer(answering, key)).toString()).toBe('fresh\nwith a newline');
  expect(await redis.exists(freshKey(prefix, key))).toBe(0);
  expect((await getObjectBuffer(answering, key)).toString()).toBe('stored');
  // the store's own reads never look for a fresh copy
  await runSteps(redis, [freshStep(prefix, { key, bytes: bytes('fresh again'), contentType: 'audio/wav' })!]);
  expect((await getObjectBuffer(store, key)).toString()).toBe('stored');
  // a streamed read takes it with its type and length; a ranged one reads the store
  const ranged = await getObject(answering, key, 2);
  expect(ranged.contentLength).toBe(4);
  ranged.body.destroy();
  const whole = await getObject(answering, key);
  expect([whole.contentType, whole.contentLength]).toEqual(['audio/wav', 'fresh again'.length]);
  const chunks: Buffer[] = [];
  for await (const chunk of whole.body) chunks.push(chunk as Buffer);
  expect(Buffer.concat(chunks).toString()).toBe('fresh again');
});

test('a file too big to hand over, or with a type that cannot be kept, makes no step', () => {
  const big = Buffer.alloc(FRESH_MAX_BYTES + 1);
  expect(freshStep('p', { key: 'k', bytes: big, contentType: 'audio/wav' })).toBeUndefined();
  expect(freshStep('p', { key: 'k', bytes: bytes('x'), contentType: 'audio/wav\nx' })).toBeUndefined();
  expect(freshStep('p', { key: 'k', bytes: Buffer.alloc(FRESH_MAX_BYTES), contentType: 'audio/wav' })).toBeDefined();
});
