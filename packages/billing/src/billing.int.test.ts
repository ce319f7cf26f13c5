import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startRedis, uniqueName, type RedisHandle } from '@relay/testkit';
import { createBilling, type Billing } from './billing.js';
import { readLedger } from './ledger.js';

let handle: RedisHandle;
let redis: Redis;
let billing: Billing;
let prefix: string;
beforeAll(async () => {
  handle = await startRedis();
  redis = new Redis(handle.url);
  prefix = uniqueName('billing');
  billing = createBilling(redis, prefix);
});
afterAll(async () => {
  redis?.disconnect();
  await handle?.close();
});

async function account(balance: number) {
  const id = uniqueName('acct');
  await redis.hset(`${prefix}:account:${id}`, { id, balance: 0, reserved: 0, spent: 0 });
  if (balance) await billing.credit(id, balance, 'opening');
  return id;
}
const reservation = (accountId: string, jobId: string, amount: number) => ({
  accountId,
  keyId: 'key_1',
  jobId,
  model: 'm',
  amount,
  units: '1',
});

test('200 concurrent reservations against a balance for exactly 50: 50 pass, never below zero', async () => {
  const id = await account(50 * 30_000);
  const results = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => billing.reserve(reservation(id, `job-a-${i}`, 30_000))));
  expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(50);
  const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  expect(refused).toHaveLength(150);
  expect(refused.every((r) => r.reason.status === 402)).toBe(true);
  expect(await billing.balanceOf(id)).toEqual({ balance: 0, reserved: 1_500_000, spent: 0 });
});

test('settle charges what was delivered, releases the rest, and only once', async () => {
  const id = await account(1_000_000);
  await billing.reserve(reservation(id, 'job-b', 15 * 40_000));
  expect(await billing.settle(id, 'job-b', 2 * 40_000, '2')).toEqual({ applied: true, charged: 80_000 });
  // the repeat reports the job's charge but applies nothing
  expect(await billing.settle(id, 'job-b', 2 * 40_000, '2')).toEqual({ applied: false, charged: 80_000 });
  expect((await billing.release('job-b')).applied).toBe(false);
  expect(await billing.balanceOf(id)).toEqual({ balance: 920_000, reserved: 0, spent: 80_000 });
  expect(await billing.reservationState('job-b')).toBe('settled');
});

test('a charge never exceeds its reservation; release gives everything back', async () => {
  const id = await account(100);
  await billing.reserve(reservation(id, 'job-c', 60));
  expect((await billing.settle(id, 'job-c', 500, '9')).charged).toBe(60);
  await billing.reserve(reservation(id, 'job-d', 40));
  expect((await billing.release('job-d')).applied).toBe(true);
  expect(await billing.balanceOf(id)).toEqual({ balance: 40, reserved: 0, spent: 60 });
});

test('reserving twice for one job holds the money once', async () => {
  const id = await account(100);
  await billing.reserve(reservation(id, 'job-e', 70));
  await billing.reserve(reservation(id, 'job-e', 70));
  expect(await billing.balanceOf(id)).toMatchObject({ balance: 30, reserved: 70 });
});

test('debits stop at zero; the ledger sums to the balance and pages newest first', async () => {
  const id = await account(500);
  await expect(billing.credit(id, -501)).rejects.toMatchObject({ status: 400 });
  await billing.reserve(reservation(id, 'job-f', 200));
  await billing.settle(id, 'job-f', 150, '1');
  await billing.credit(id, -100, 'correction');
  const { entries } = await readLedger(redis, prefix, id, { limit: 100 });
  expect(entries.map((e) => e.type)).toEqual(['credit', 'settle', 'reserve', 'credit']);
  expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe((await billing.balanceOf(id))!.balance);
  expect(entries[1]).toMatchObject({ charged: 150, jobId: 'job-f', amount: 50 });
  const page1 = await readLedger(redis, prefix, id, { limit: 2 });
  const page2 = await readLedger(redis, prefix, id, { limit: 2, cursor: page1.nextCursor! });
  expect([...page1.entries, ...page2.entries].map((e) => e.id)).toEqual(entries.map((e) => e.id));
  expect((await readLedger(redis, prefix, id, { limit: 10, model: 'm' })).entries).toHaveLength(2);
  const firstAt = Date.parse(entries.at(-1)!.at);
  expect((await readLedger(redis, prefix, id, { limit: 10, from: Date.now() + 60_000 })).entries).toEqual([]);
  expect((await readLedger(redis, prefix, id, { limit: 10, to: firstAt })).entries.map((e) => e.id)).toContain(entries.at(-1)!.id);
});

test('a cancel works only before the upstream call began; settling and releasing work after', async () => {
  const id = await account(1_000);
  await billing.reserve(reservation(id, 'job-g', 300));
  expect(await billing.begin('job-g')).toBe('begin');
  expect((await billing.cancel('job-g')).applied).toBe(false);
  expect(await billing.begin('job-g')).toBe('begin'); // a retry of the same job
  expect((await billing.settle(id, 'job-g', 100, '1')).charged).toBe(100);

  await billing.reserve(reservation(id, 'job-h', 300));
  expect((await billing.cancel('job-h')).applied).toBe(true);
  expect(await billing.begin('job-h')).toBe('cancelled');
  expect(await billing.stop('job-h')).toBe(false);
  expect((await billing.settle(id, 'job-h', 100, '1')).applied).toBe(false);

  await billing.reserve(reservation(id, 'job-i', 300));
  await billing.begin('job-i');
  expect((await billing.release('job-i')).applied).toBe(true);
  expect(await billing.balanceOf(id)).toEqual({ balance: 900, reserved: 0, spent: 100 });
});

test('a begin asked with its pick begins only when the pick leased: a job left waiting for a channel stays cancellable', async () => {
  const id = await account(1_000);
  const sets = [`${prefix}:cap:ch:a`, `${prefix}:cap:ch:b`];
  const lease = { token: 'tok-1', sets };
  await billing.reserve(reservation(id, 'job-l', 300));
  expect(await billing.begin('job-l', undefined, lease)).toBe('unleased'); // the pick found no channel
  expect((await billing.cancel('job-l')).applied).toBe(true);
  expect(await billing.begin('job-l', undefined, lease)).toBe('cancelled'); // cancelled while it waited: told at once

  await billing.reserve(reservation(id, 'job-m', 300));
  await redis.zadd(sets[1]!, Date.now() + 60_000, 'other-token');
  expect(await billing.begin('job-m', undefined, lease)).toBe('unleased'); // another call's lease
  await redis.zadd(sets[1]!, Date.now() + 60_000, 'tok-1');
  expect(await billing.begin('job-m', undefined, lease)).toBe('begin');
  expect((await billing.cancel('job-m')).applied).toBe(false);
  expect(await billing.stop('job-m')).toBe(true);
  expect(await billing.begin('job-m', undefined, { token: 'tok-2', sets })).toBe('stopped'); // stopped: lease or not
  expect((await billing.release('job-m')).applied).toBe(true);
  expect(await billing.balanceOf(id)).toEqual({ balance: 1_000, reserved: 0, spent: 0 });
});

test('a begun job its owner stops begins no further call, and is still charged for what it delivered', async () => {
  const id = await account(1_000);
  await billing.reserve(reservation(id, 'job-s', 300));
  expect(await billing.stop('job-s')).toBe(false); // not begun: that is a cancel's work
  expect(await billing.stopping('job-s')).toBe(false);
  expect(await billing.begin('job-s')).toBe('begin');
  expect(await billing.stop('job-s')).toBe(true);
  expect(await billing.stop('job-s')).toBe(true);
  expect(await billing.stopping('job-s')).toBe(true);
  expect(await billing.begin('job-s')).toBe('stopped');
  expect((await billing.cancel('job-s')).applied).toBe(false);
  expect((await billing.settle(id, 'job-s', 100, '1')).charged).toBe(100);
  expect(await billing.stop('job-s')).toBe(false); // settled: nothing left to stop
  expect(await billing.balanceOf(id)).toEqual({ balance: 900, reserved: 0, spent: 100 });
});

test('an end user named at reservation is on every entry of the job, and filters the ledger', async () => {
  const id = await account(1_000);
  await billing.reserve({ ...reservation(id, 'job-u1', 300), user: 'alice' });
  await billing.settle(id, 'job-u1', 100, '1');
  await billing.reserve(reservation(id, 'job-u2', 300));
  await billing.release('job-u2');
  const alice = await readLedger(redis, prefix, id, { limit: 10, user: 'alice' });
  expect(alice.entries.map((e) => [e.type, e.jobId, e.user])).toEqual([
    ['settle', 'job-u1', 'alice'],
    ['reserve', 'job-u1', 'alice'],
  ]);
  const all = await readLedger(redis, prefix, id, { limit: 10 });
  expect(all.entries.filter((e) => e.jobId === 'job-u2').every((e) => e.user === undefined)).toBe(true);
});

test("a batch's hold: lines carve their reservations from it, the balance covers a shortfall, the rest goes back once", async () => {
  const id = await account(1_000_000);
  await billing.hold(reservation(id, 'batch-h', 100_000));
  expect(await billing.balanceOf(id)).toEqual({ balance: 900_000, reserved: 100_000, spent: 0 });
  // the hold is no open reservation: no sweeper gives it back behind its batch's back
  expect(await billing.openLongerThan(0, 100)).not.toContain('batch-h');
  expect(await billing.carve('batch-h', reservation(id, 'line-1', 60_000))).toEqual({ outcome: 'made', state: 'reserved' });
  expect(await billing.carve('batch-h', reservation(id, 'line-1', 60_000))).toEqual({ outcome: 'exists', state: 'reserved' });
  // 40,000 left in the hold: 20,000 more come from the balance, with its ledger entry
  expect(await billing.carve('batch-h', reservation(id, 'line-2', 60_000))).toEqual({ outcome: 'made', state: 'reserved' });
  expect(await billing.balanceOf(id)).toEqual({ balance: 880_000, reserved: 120_000, spent: 0 });
  expect(await billing.carve('batch-h', reservation(id, 'line-3', 10_000_000))).toEqual({ outcome: 'short' });
  await billing.settle(id, 'line-1', 30_000, '1');
  await billing.release('line-2');
  // the hold is carved down to nothing: releasing it moves no money and still closes it once
  expect((await billing.release('batch-h')).applied).toBe(true);
  expect((await billing.release('batch-h')).applied).toBe(false);
  expect(await billing.balanceOf(id)).toEqual({ balance: 970_000, reserved: 0, spent: 30_000 });
  const entries = await readLedger(redis, prefix, id, { limit: 100 });
  expect(entries.entries.reduce((sum, e) => sum + e.amount, 0)).toBe(970_000);
  // a hold of nothing (every line of its batch refused) is a hold like another
  await billing.hold(reservation(id, 'batch-zero', 0));
  expect((await billing.release('batch-zero')).applied).toBe(true);
});
