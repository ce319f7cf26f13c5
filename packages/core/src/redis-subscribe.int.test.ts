import { once } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, expect, test } from 'vitest';
import { startRedis, uniqueName } from '@relay/testkit';
import { createRedis, subscribeWhenReady } from './redis.js';

const redis = await startRedis();
const publisher = new Redis(redis.url);
afterAll(async () => {
  publisher.disconnect();
  await redis.close();
});

test('a subscription asked for during the connection handshake holds: no subscriber-mode error, messages arrive', async () => {
  const channel = uniqueName('freed');
  const errors: string[] = [];
  const subscriber = createRedis(redis.url, 'patient', 'test-subscriber', (err) => errors.push(err.message));
  try {
    // 'connect': the socket is open and ioredis is still in its handshake (CLIENT SETINFO, then INFO)
    await once(subscriber, 'connect');
    const subscribed = subscribeWhenReady(subscriber, channel);
    if (subscriber.status !== 'ready') await once(subscriber, 'ready');
    await subscribed;
    expect(await publisher.pubsub('NUMSUB', channel)).toEqual([channel, 1]);
    const heard = once(subscriber, 'message');
    await publisher.publish(channel, 'lease given back');
    expect(await heard).toEqual([channel, 'lease given back']);
    expect(errors).toEqual([]);
  } finally {
    subscriber.disconnect();
  }
});

test('on a ready connection it subscribes at once', async () => {
  const channel = uniqueName('freed');
  const subscriber = createRedis(redis.url, 'patient', 'test-subscriber');
  try {
    await once(subscriber, 'ready');
    await subscribeWhenReady(subscriber, channel);
    expect(await publisher.pubsub('NUMSUB', channel)).toEqual([channel, 1]);
  } finally {
    subscriber.disconnect();
  }
});
