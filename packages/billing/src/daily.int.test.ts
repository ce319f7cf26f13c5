import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startRedis, uniqueName, type RedisHandle } from '@relay/testkit';
import { createBilling, type Billing } from './billing.js';
import { AGGREGATE_RETENTION_DAYS, ALL_ACCOUNTS, readDailyUsage, readMonthSpend, unitCount, usageKeys, utcDay } from './daily.js';

let handle: RedisHandle;
let redis: Redis;
let billing: Billing;
let prefix: string;
/** The moment every settlement here is made at: which day it counts in does not hang on when the test runs. */
const NOW = Date.parse('2026-03-10T23:59:59.900Z');
const TODAY = '2026-03-10';
beforeAll(async () => {
  handle = await startRedis();
  redis = new Redis(handle.url);
  prefix = uniqueName('daily');
  billing = createBilling(redis, prefix, () => NOW);
});
afterAll(async () => {
  redis?.disconnect();
  await handle?.close();
});

async function account(balance: number) {
  const id = uniqueName('acct');
  await redis.hset(`${prefix}:account:${id}`, { id, balance: 0, reserved: 0, spent: 0 });
  await billing.credit(id, balance, 'opening');
  return id;
}
const reserve = (accountId: string, jobId: string, model: string, amount: number) =>
  billing.reserve({ accountId, keyId: 'key_1', jobId, model, amount, units: '1' });

test('unit counts: images, or input plus output tokens', () => {
  expect(unitCount('3 images')).toBe(3);
  expect(unitCount('in:120,out:900')).toBe(1_020);
  expect(unitCount('')).toBe(0);
});

test('each settlement adds to its day for the account and for the relay, and to the month; repeats and releases add nothing', async () => {
  const [a, b] = [await account(10_000_000), await account(10_000_000)];
  await reserve(a, 'd-1', 'img', 100_000);
  await billing.settle(a, 'd-1', 70_000, '2 images');
  await billing.settle(a, 'd-1', 70_000, '2 images'); // a retry: already settled
  await reserve(a, 'd-2', 'tts', 500_000);
  await billing.settle(a, 'd-2', 1_234, 'in:10,out:300');
  await reserve(a, 'd-3', 'img', 100_000);
  await billing.release('d-3');
  await reserve(b, 'd-4', 'img', 100_000);
  await billing.settle(b, 'd-4', 35_000, '1 images');

  expect((await readDailyUsage(redis, prefix, a, 3, NOW)).days).toEqual([
    { day: TODAY, model: 'img', charged: 70_000, units: 2, jobs: 1 },
    { day: TODAY, model: 'tts', charged: 1_234, units: 310, jobs: 1 },
  ]);
  expect((await readDailyUsage(redis, prefix, ALL_ACCOUNTS, 1, NOW)).days).toEqual([
    { day: TODAY, model: 'img', charged: 105_000, units: 3, jobs: 2 },
    { day: TODAY, model: 'tts', charged: 1_234, units: 310, jobs: 1 },
  ]);
  expect(await readMonthSpend(redis, prefix, [a, b, 'acct_none'], NOW)).toEqual([71_234, 35_000, 0]);
  // the aggregates agree with what the accounts were charged
  expect((await billing.balanceOf(a))!.spent).toBe(71_234);
  // and they expire, each of them: bounded retention
  const keys = usageKeys(prefix);
  for (const key of [keys.day(TODAY, a), keys.day(TODAY, b), keys.day(TODAY, ALL_ACCOUNTS)]) {
    const ttl = await redis.ttl(key);
    expect(ttl, key).toBeGreaterThan((AGGREGATE_RETENTION_DAYS - 1) * 86_400);
    expect(ttl, key).toBeLessThanOrEqual(AGGREGATE_RETENTION_DAYS * 86_400);
  }
});

test("a day's first settlement, alone, leaves every aggregate it wrote with an expiry", async () => {
  const own = uniqueName('daily-first');
  const first = createBilling(redis, own, () => NOW);
  const id = uniqueName('acct');
  await redis.hset(`${own}:account:${id}`, { id, balance: 0, reserved: 0, spent: 0 });
  await first.credit(id, 1_000, 'opening');
  await first.reserve({ accountId: id, keyId: 'key_1', jobId: 'm-1', model: 'img', amount: 100, units: '1' });
  await first.settle(id, 'm-1', 60, '1 images');
  const keys = usageKeys(own);
  for (const key of [keys.day(TODAY, id), keys.day(TODAY, ALL_ACCOUNTS)]) {
    expect(await redis.exists(key), key).toBe(1);
    expect(await redis.ttl(key), key).toBeGreaterThan((AGGREGATE_RETENTION_DAYS - 1) * 86_400);
  }
});

test("a month's spend: one figure in the account's hash, started again by a later month's settlement, never by an earlier one's", async () => {
  const own = uniqueName('daily-month');
  let now = NOW;
  const shifting = createBilling(redis, own, () => now);
  const id = uniqueName('acct');
  await redis.hset(`${own}:account:${id}`, { id, balance: 0, reserved: 0, spent: 0 });
  await shifting.credit(id, 1_000_000, 'opening');
  const settle = async (jobId: string, charge: number) => {
    await shifting.reserve({ accountId: id, keyId: 'key_1', jobId, model: 'img', amount: 1_000, units: '1' });
    await shifting.settle(id, jobId, charge, '1 images');
  };
  await settle('m-1', 100);
  await settle('m-2', 200);
  expect(await readMonthSpend(redis, own, [id], now)).toEqual([300]);
  const april = Date.parse('2026-04-01T00:00:00.100Z');
  now = april;
  await settle('m-3', 50);
  expect(await readMonthSpend(redis, own, [id], april)).toEqual([50]);
  // March is over once April counts: read then, it is gone, not April's figure
  expect(await readMonthSpend(redis, own, [id], NOW)).toEqual([0]);
  // a settlement dated in March (a clock behind) counts in the account's sums, not in April
  now = NOW;
  await settle('m-4', 7);
  expect(await readMonthSpend(redis, own, [id], april)).toEqual([50]);
  expect((await shifting.balanceOf(id))!.spent).toBe(357);
  // one hash, nothing else keyed by the month
  expect(await redis.keys(`${own}:usage:month:*`)).toEqual([]);
});

test('a month counted by an earlier release (its own key) still adds up with what the account counts since', async () => {
  const own = uniqueName('daily-legacy');
  const billingNow = createBilling(redis, own, () => NOW);
  const id = uniqueName('acct');
  await redis.hset(`${own}:account:${id}`, { id, balance: 0, reserved: 0, spent: 0 });
  await redis.hset(usageKeys(own).legacyMonth(TODAY.slice(0, 7)), id, 900);
  await billingNow.credit(id, 1_000_000, 'opening');
  await billingNow.reserve({ accountId: id, keyId: 'key_1', jobId: 'l-1', model: 'img', amount: 1_000, units: '1' });
  await billingNow.settle(id, 'l-1', 40, '1 images');
  expect(await readMonthSpend(redis, own, [id, 'acct_none'], NOW)).toEqual([940, 0]);
});

test('the window lists only days with settlements, oldest first; other days and accounts stay apart', async () => {
  const id = await account(1_000_000);
  const yesterday = utcDay(NOW - 86_400_000);
  expect(yesterday).toBe('2026-03-09');
  await redis.hset(usageKeys(prefix).day(yesterday, id), { 'charged:img': 5, 'units:img': 1, 'jobs:img': 1 });
  await reserve(id, 'd-5', 'img', 100);
  await billing.settle(id, 'd-5', 40, '1 images');
  const rows = (await readDailyUsage(redis, prefix, id, 7, NOW)).days;
  expect(rows.map((r) => [r.day, r.charged])).toEqual([
    [yesterday, 5],
    [TODAY, 40],
  ]);
  expect((await readDailyUsage(redis, prefix, id, 1, NOW)).days).toHaveLength(1);
});
