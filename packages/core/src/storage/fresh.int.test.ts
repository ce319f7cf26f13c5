import { Redis } from 'ioredis';
import { afterAll, expect, test } from 'vitest';
import { startLocalS3, startRedis, uniqueName } from '@relay/testkit';
import { runSteps } from '../lua-command.js';
import { createBlobStore, getObject, getObjectBuffer, putObject } from './s3.js';
import { createFreshFiles, FRESH_MAX_BYTES, freshChannel, freshStep, parseFresh, withFreshFiles } from './fresh.js';

/** Fresh copies on a real Redis beside a real store: published, heard, read once instead of the store's. */
const redisHandle = await startRedis();
const redis = new Redis(redisHandle.url);
const s3 = await startLocalS3({ bucket: uniqueName('fresh').toLowerCase() });
const store = createBlobStore({ ...s3.env, S3_FORCE_PATH_STYLE: true });
afterAll(async () => {
  redis.disconnect();
  await Promise.all([redisHandle.close(), s3.close()]);
});

const bytes = (text: string) => Buffer.from(text);

test("a file published to the waiting process is read instead of the store's, once: then the store answers", async () => {
  const inbox = `${uniqueName('fresh')}:inbox:api-1`;
  const key = `files/${uniqueName('clip')}.wav`;
  // the store's copy differs from the fresh one here, so the test sees which was read
  await putObject(store, key, bytes('stored'), { contentType: 'audio/wav' });
  const files = createFreshFiles();
  const subscriber = new Redis(redisHandle.url);
  let heard = () => {};
  subscriber.on('messageBuffer', (channel: Buffer, message: Buffer) => {
    if (channel.toString() !== freshChannel(inbox)) return;
    files.keep(parseFresh(message)!);
    heard();
  });
  await subscriber.subscribe(freshChannel(inbox));
  const publish = async (text: string) => {
    const arrived = new Promise<void>((resolve) => (heard = resolve));
    const [sent] = await runSteps(redis, [freshStep(inbox, { key, bytes: bytes(text), contentType: 'audio/wav' })!]);
    expect(sent).toEqual({ ok: true, value: 1 }); // one subscriber heard it
    await arrived;
  };

  await publish('fresh\nwith a newline');
  const answering = withFreshFiles(store, files.take);
  expect((await getObjectBuffer(answering, key)).toString()).toBe('fresh\nwith a newline');
  expect(files.heldBytes()).toBe(0);
  expect((await getObjectBuffer(answering, key)).toString()).toBe('stored');
  // the store's own reads never look for a fresh copy
  await publish('fresh again');
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
  subscriber.disconnect();
});

test('a file too big to hand over, or named so that it cannot be told apart, makes no step', () => {
  const big = Buffer.alloc(FRESH_MAX_BYTES + 1);
  expect(freshStep('i', { key: 'k', bytes: big, contentType: 'audio/wav' })).toBeUndefined();
  expect(freshStep('i', { key: 'k', bytes: bytes('x'), contentType: 'audio/wav\nx' })).toBeUndefined();
  expect(freshStep('i', { key: 'k\n', bytes: bytes('x'), contentType: 'audio/wav' })).toBeUndefined();
  expect(freshStep('i', { key: 'k', bytes: Buffer.alloc(FRESH_MAX_BYTES), contentType: 'audio/wav' })).toBeDefined();
});
