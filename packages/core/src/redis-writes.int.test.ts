import { once } from 'node:events';
import type { Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { spawnRedisServer, type LocalRedis } from '@relay/testkit';
import { createRedis } from './redis.js';
import { coalesceWrites } from './redis-writes.js';

let server: LocalRedis;
beforeAll(async () => {
  server = await spawnRedisServer();
});
afterAll(async () => server?.close());

/** How many times the client's socket handed data to the system while `burst` ran its commands. */
async function writesDuring(redis: Redis, burst: () => Promise<unknown>) {
  const socket = redis.stream as Socket & { _write: (...a: unknown[]) => void; _writev: (...a: unknown[]) => void };
  let writes = 0;
  const [single, vector] = [socket._write, socket._writev];
  socket._write = (...args) => void (writes++, Reflect.apply(single, socket, args));
  socket._writev = (...args) => void (writes++, Reflect.apply(vector, socket, args));
  try {
    await burst();
  } finally {
    [socket._write, socket._writev] = [single, vector];
  }
  return writes;
}

const fiftyCommands = (redis: Redis) => () => Promise.all(Array.from({ length: 50 }, (_, i) => redis.set(`coalesce:${i}`, i)));

test('the commands of one turn of the event loop leave in one write, and each in its own order', async () => {
  const redis = createRedis(server.url, 'patient', 'coalesce-test');
  try {
    await once(redis, 'ready');
    expect(await writesDuring(redis, fiftyCommands(redis))).toBe(1);
    expect(await redis.mget(Array.from({ length: 50 }, (_, i) => `coalesce:${i}`))).toEqual(
      Array.from({ length: 50 }, (_, i) => String(i)),
    );
    // commands in separate turns are not held for each other
    expect(
      await writesDuring(redis, async () => {
        await redis.ping();
        await redis.ping();
      }),
    ).toBe(2);
  } finally {
    redis.disconnect();
  }
});

test('a client given over already connected is coalesced, and so is the socket it reconnects with', async () => {
  const redis = new Redis(server.url);
  try {
    await once(redis, 'ready');
    expect(await writesDuring(redis, fiftyCommands(redis))).toBe(50);
    coalesceWrites(redis);
    expect(await writesDuring(redis, fiftyCommands(redis))).toBe(1);
    const first = redis.stream;
    redis.disconnect(true);
    await once(redis, 'ready');
    expect(redis.stream).not.toBe(first);
    expect(await writesDuring(redis, fiftyCommands(redis))).toBe(1);
  } finally {
    redis.disconnect();
  }
});
