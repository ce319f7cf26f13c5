import { Redis } from 'ioredis';
import { afterAll, expect, test } from 'vitest';
import { startRedis } from '@relay/testkit';
import { evalScript } from './lua.js';

// A server of its own: the test counts commands and keys, which other suites would disturb on a shared one.
const handle = await startRedis({ own: true });
const redis = new Redis(handle.url);
afterAll(async () => {
  redis.disconnect();
  await handle.stop();
});

const INCR_BY = "return redis.call('INCRBY', KEYS[1], ARGV[1])";
const calls = async (command: 'eval' | 'evalsha') =>
  Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(await redis.info('commandstats'))?.[1] ?? 0);

test('a script is sent whole once per server, then run by its hash, and sent again when the server forgot it', async () => {
  await redis.config('RESETSTAT');
  expect(await evalScript(redis, INCR_BY, 1, 'n', 2)).toBe(2);
  expect(await evalScript(redis, INCR_BY, 1, 'n', 2)).toBe(4);
  expect(await evalScript(redis, INCR_BY, 1, 'n', 2)).toBe(6);
  expect(await calls('eval')).toBe(1);
  expect(await calls('evalsha')).toBe(3); // the first one answered NOSCRIPT

  await redis.script('FLUSH');
  expect(await evalScript(redis, INCR_BY, 1, 'n', 3)).toBe(9);
  expect(await calls('eval')).toBe(2);
  await expect(evalScript(redis, "return redis.call('NOPE')", 0)).rejects.toThrow(/unknown/i);
});
