import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { MAX_MICRO_UNITS } from '@relay/core';
import { startRedis, uniqueName, type RedisHandle } from '@relay/testkit';
import { createBilling, type Billing } from './billing.js';
import { readLedger } from './ledger.js';
import { tokenCost } from './prices.js';

/**
 * Every amount is held to MAX_MICRO_UNITS (10^15, one billion units): an account never holds
 * more, available and reserved together, so no figure reaches 2^53, past which JavaScript and
 * Redis's Lua round. Before the ceiling, three credits of Number.MAX_SAFE_INTEGER went through and
 * a debit of 1 after them left the balance the API showed unchanged.
 */
let handle: RedisHandle;
let redis: Redis;
let billing: Billing;
let prefix: string;
beforeAll(async () => {
  handle = await startRedis();
  redis = new Redis(handle.url);
  prefix = uniqueName('ceiling');
  billing = createBilling(redis, prefix);
});
afterAll(async () => {
  redis?.disconnect();
  await handle?.close();
});

async function account() {
  const id = uniqueName('acct');
  await redis.hset(`${prefix}:account:${id}`, { id, balance: 0, reserved: 0, spent: 0 });
  return id;
}

test('a credit that would take the account past the ceiling is refused whole, never rounded; every figure stays exact', async () => {
  const id = await account();
  await billing.credit(id, MAX_MICRO_UNITS - 1, 'almost all');
  await billing.credit(id, 1, 'the last micro-unit');
  const refused = billing.credit(id, 1, 'one too many');
  await expect(refused).rejects.toMatchObject({ status: 400, param: 'amount' });
  await expect(refused).rejects.toThrow(
    /past 1000000000000000 micro-units \(1,000,000,000\.00 units\).*nothing was credited; at most 0 more fits/,
  );
  // the amount itself past the ceiling, or past 2^53 (where it would be rounded on its way in)
  for (const amount of [MAX_MICRO_UNITS + 1, Number.MAX_SAFE_INTEGER, 2 ** 60]) {
    await expect(billing.credit(id, amount)).rejects.toMatchObject({ status: 400, param: 'amount' });
  }
  expect(await billing.balanceOf(id)).toEqual({ balance: MAX_MICRO_UNITS, reserved: 0, spent: 0 });

  // a debit of one micro-unit at the ceiling shows, to the micro-unit
  expect(await billing.credit(id, -1, 'correction')).toEqual({ balance: MAX_MICRO_UNITS - 1 });
  expect(await redis.hget(`${prefix}:account:${id}`, 'balance')).toBe(String(MAX_MICRO_UNITS - 1));
  const { entries } = await readLedger(redis, prefix, id, { limit: 100 });
  expect(entries.map((e) => e.amount)).toEqual([-1, 1, MAX_MICRO_UNITS - 1]);
  expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe(MAX_MICRO_UNITS - 1);
});

test('what is reserved counts: balance and reserved together stay within the ceiling, and a release brings it back to it exactly', async () => {
  const id = await account();
  await billing.credit(id, MAX_MICRO_UNITS);
  await billing.reserve({ accountId: id, keyId: 'key_1', jobId: uniqueName('job'), model: 'm', amount: 400, units: '1' });
  // 400 are held, not gone: crediting them again would leave the account holding more than the ceiling
  await expect(billing.credit(id, 400)).rejects.toThrow(/balance 999999999999600, reserved 400\) past/);
  const jobId = uniqueName('job');
  await billing.reserve({ accountId: id, keyId: 'key_1', jobId, model: 'm', amount: 600, units: '1' });
  await billing.settle(id, jobId, 250, '1');
  // 250 were charged: exactly that much fits again
  await expect(billing.credit(id, 251)).rejects.toThrow(/at most 250 more fits/);
  expect(await billing.credit(id, 250)).toEqual({ balance: MAX_MICRO_UNITS - 400 });
  expect(await billing.balanceOf(id)).toEqual({ balance: MAX_MICRO_UNITS - 400, reserved: 400, spent: 250 });
});

test('a token price near the ceiling is charged exactly: the product is not rounded before it is divided', () => {
  // 18,145 x 123,456,789,012,345 is past 2^53: in floating point its ceil came out one micro-unit short
  expect(tokenCost(18_145, 123_456_789_012_345)).toBe(2_240_123_436_630);
  expect(tokenCost(36_128, 123_456_789_012_345)).toBe(4_460_246_873_439);
  expect(tokenCost(1_500, 1_000_000)).toBe(1_500);
  expect(tokenCost(1, 1)).toBe(1);
});
