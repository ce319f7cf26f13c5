import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startRedis, uniqueName, type RedisHandle } from '@relay/testkit';
import { createAccountsStore } from './accounts.js';

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

/** Calls of one command Redis ran so far (INFO commandstats). */
async function callsOf(command: string) {
  const line = (await redis.info('commandstats')).split('\n').find((l) => l.startsWith(`cmdstat_${command}:`));
  return Number(/calls=(\d+)/.exec(line ?? '')?.[1] ?? 0);
}

test("a key's lookups that come while one is asked share it; a key revoked is looked up afresh", async () => {
  const accounts = createAccountsStore(redis, uniqueName('callers'));
  const made = await accounts.createAccount('callers');
  if (!('created' in made)) throw new Error('the account exists already');
  const { record, secret } = await accounts.createKey(made.created.id, 'burst');
  const before = await callsOf('hgetall');
  const callers = await Promise.all(Array.from({ length: 20 }, () => accounts.findCaller(secret)));
  expect((await callsOf('hgetall')) - before).toBe(1);
  expect(callers).toEqual(Array(20).fill({ keyId: record.id, accountId: made.created.id }));
  // a lookup in flight while the key is revoked answers as it found it; the next one finds no key
  const inFlight = accounts.findCaller(secret);
  await accounts.revokeKey(record.id);
  const after = accounts.findCaller(secret);
  expect(await inFlight).toEqual({ keyId: record.id, accountId: made.created.id });
  expect(await after).toBeUndefined();
  expect(await accounts.findCaller('rk_not_a_key')).toBeUndefined();
});
