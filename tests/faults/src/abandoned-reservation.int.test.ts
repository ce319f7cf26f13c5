import { afterAll, beforeAll, expect, test } from 'vitest';
import { createBilling } from '@relay/billing';
import { createRedis } from '@relay/core';
import { newJobId } from '@relay/jobs';
import { waitFor } from '@relay/testkit';
import { startStack, type Stack } from '@relay/e2e';
import { IMAGE, generate, settlementsPerJob, untilSimHolding, workerCounter } from './helpers.js';

/**
 * The api reserves, then queues. An api that dies between the two (or a Redis that drops the
 * queueing and then the release meant to undo it) leaves money held for a job that does not
 * exist; the worker gives it back once the grace period is over, and only then.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ tuning: { worker: { reservationGraceMs: 1_500, reservationSweepMs: 200 } } });
}, 60_000);
afterAll(async () => stack?.close());

test('a reservation whose job never reached the queue is released after the grace period; a running one is not', async () => {
  const { key, keyId, accountId } = await stack.newKey({ balance: 1_000_000 });
  // a job that outlives the grace period: its reservation must stay
  await stack.fault({ type: 'hold', api: 'images' });
  const running = generate(stack, key, IMAGE);
  await untilSimHolding(stack, 1);

  // what a dying api leaves behind: a reservation and no job
  const redis = createRedis(stack.redis.url, 'patient');
  try {
    const billing = createBilling(redis, stack.env.REDIS_PREFIX!);
    const orphan = newJobId('img');
    await billing.reserve({ accountId, keyId, jobId: orphan, model: IMAGE.model, amount: 450_000, units: '15 images' });
    expect((await stack.account(accountId)).reserved).toBe(480_000);

    await waitFor(async () => (await workerCounter(stack, 'relay_reservations_swept_total')) >= 1, 20_000, 'the sweep');
    const account = await stack.account(accountId);
    expect(account).toMatchObject({ reserved: 30_000, balance: 1_000_000 - 30_000 });
    expect(account.ledger.filter((e) => e.jobId === orphan).map((e) => e.type)).toEqual(['release', 'reserve']);
    // a second sweep finds nothing more to give back
    expect(await billing.openLongerThan(0, 10)).not.toContain(orphan);
  } finally {
    redis.disconnect();
  }

  await stack.release();
  expect((await running).status).toBe(200);
  expect([...(await settlementsPerJob(stack, accountId)).values()]).toEqual([1]);
  expect(await stack.account(accountId)).toMatchObject({ reserved: 0, balance: 1_000_000 - 30_000 });
}, 60_000);
