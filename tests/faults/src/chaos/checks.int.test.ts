import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startStack, type Stack } from '@relay/e2e';
import { IMAGE, generate } from '../helpers.js';
import { redisProblems } from './checks.js';

/** The chaos runs' Redis check passes on a relay that served a request, and names what a leak would leave. */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(async () => stack?.close());

test('an idle relay holds nothing beyond its retention; an open reservation, a stray job record, a schedule place and an unknown key are named', async () => {
  const { key } = await stack.newKey();
  expect((await generate(stack, key, IMAGE)).status).toBe(200);
  expect(await redisProblems(stack, 0)).toEqual([]);

  const redis = new Redis(stack.redis.url);
  const p = stack.env.REDIS_PREFIX!;
  try {
    await redis.hset(`${p}:reservation:img_0123456789abcdef`, 'state', 'reserved');
    await redis.expire(`${p}:reservation:img_0123456789abcdef`, 600);
    await redis.hset(`${p}:bull:images:img_0123456789abcdef`, 'name', 'stray');
    await redis.hset(`${p}:sched:images:running`, 'img_0123456789abcdef', 'acct 1 standard 0');
    await redis.set(`${p}:something:new`, '1');
    const problems = await redisProblems(stack, 0);
    expect(problems).toEqual(
      expect.arrayContaining([
        `${p}:reservation:img_0123456789abcdef is still open`,
        `${p}:bull:images:img_0123456789abcdef: a job record in no ended set, kept for ever`,
        `1 key(s) ${p}:sched:images:running kept with no expiry`,
        `1 key(s) ${p}:something:new kept with no expiry`,
      ]),
    );
    expect(problems).toHaveLength(4);
  } finally {
    await redis.del(
      ...['reservation', 'bull:images'].map((k) => `${p}:${k}:img_0123456789abcdef`),
      `${p}:sched:images:running`,
      `${p}:something:new`,
    );
    redis.disconnect();
  }
});
