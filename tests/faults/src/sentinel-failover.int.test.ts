import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { startStack, type Stack } from '@relay/e2e';
import { FAILOVER_TUNING } from './knobs.js';
import { IMAGE, finalAnswer, generate, settlementsPerJob, untilSimHolding } from './helpers.js';

/**
 * Redis behind Sentinel, as teams run it to survive losing their Redis machine: a primary, its
 * replica and three sentinels on loopback, the relay given only the sentinels
 * (REDIS_URL=redis+sentinel://...). The primary is killed while a job is in flight; the sentinels
 * promote the replica, and the relay follows them: the job in flight ends and is charged once,
 * new requests are served by the new primary, and a request that met the failover was told 503
 * (retry), never 500.
 *
 * Replication is asynchronous, but the relay answers only once a replica has what the answer
 * depends on: the job accepted here needs no help to survive (sentinel-unreplicated.int.test.ts
 * kills a primary whose replica was cut off).
 */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ sentinel: true, tuning: FAILOVER_TUNING });
}, 120_000);
afterAll(async () => stack?.close());

test('the primary dies mid-job: the relay follows the sentinels to the promoted replica, and nothing accepted is lost', async () => {
  const set = stack.sentinel!;
  const { key, accountId } = await stack.newKey();
  const before = await generate(stack, key);
  expect(before.status).toBe(200);

  // a job accepted and in flight at the vendor when the primary dies
  await stack.fault({ type: 'hold', api: 'images' });
  const accepted = await generate(stack, key, IMAGE, { prefer: 'respond-async' });
  expect(accepted.status).toBe(202);
  const { id } = (await accepted.json()) as { id: string };
  await untilSimHolding(stack, 1);

  const { from, to } = await set.failOver();
  expect(to).not.toBe(from);
  await stack.release();

  // the api's first requests may meet the old connection: a 503 to retry, never a 500
  const statuses: number[] = [];
  await waitFor(
    async () => {
      const res = await generate(stack, key);
      statuses.push(res.status);
      if (res.status === 503) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      return res.status === 200;
    },
    60_000,
    'a request served by the new primary',
  );
  expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);

  const held = await finalAnswer(stack.url, key, id);
  expect(held.status).toBe(200);
  const after = await generate(stack, key);
  expect(after.status).toBe(200);

  // every job that answered 200 is charged once, the job in flight included; no 503 was charged
  // before, the held job, after, and each 200 of the probe (its last)
  const served = 3 + statuses.filter((s) => s === 200).length;
  const settled = await settlementsPerJob(stack, accountId);
  expect([...settled.values()].every((n) => n === 1)).toBe(true);
  expect(settled.size).toBe(served);
  expect(settled.has(id)).toBe(true);
  await waitFor(async () => (await stack.account(accountId)).reserved === 0, 20_000, 'no money held');
}, 180_000);
