import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { startStack, type Stack } from '@relay/e2e';
import { finalAnswer, generate, settlementsPerJob, untilSimHolding } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ ownRedis: true });
}, 60_000);
afterAll(async () => stack?.close());

test('Redis stopped and started under load (AOF on): 503 meanwhile, no accepted job lost, none charged twice', async () => {
  const { key, accountId } = await stack.newKey();
  // the upstream holds the calls: the outage surely begins while some are in flight
  await stack.fault({ type: 'hold', api: 'images', times: 10 });
  const accepted = await Promise.all(Array.from({ length: 10 }, () => generate(stack, key, undefined, { Prefer: 'respond-async' })));
  const jobIds = await Promise.all(accepted.map(async (res) => ((await res.json()) as { id: string }).id));
  expect(accepted.every((res) => res.status === 202)).toBe(true);
  await untilSimHolding(stack, 1);

  await stack.redis.stop();
  // answered while Redis is still away (it comes back only below): the api does not wait for it
  const refused = await generate(stack, key);
  expect(refused.status).toBe(503);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(((await refused.json()) as { error: { type: string } }).error.type).toBe('server_error');
  expect((await fetch(`${stack.url}/healthz`)).status).toBe(200);
  expect((await fetch(`${stack.url}/readyz`)).status).toBe(503);

  // the calls in flight are answered during the outage: the worker holds paid results it cannot
  // record until Redis is back
  const answered = await stack.release();
  expect(answered).toBeGreaterThanOrEqual(1);
  await waitFor(async () => ((await stack.simStats()).statuses['200'] ?? 0) >= answered, 10_000, 'the held calls answered');
  await fetch(`${stack.sim.url}/_sim/faults`, { method: 'DELETE' }); // the jobs not begun yet are not held
  await stack.redis.start!();

  for (const jobId of jobIds) expect((await finalAnswer(stack.url, key, jobId)).status).toBe(200);
  const settled = await settlementsPerJob(stack, accountId);
  expect([...settled.keys()].sort()).toEqual([...jobIds].sort());
  expect([...settled.values()].every((n) => n === 1)).toBe(true);
  expect((await generate(stack, key)).status).toBe(200);
  expect((await fetch(`${stack.url}/readyz`)).status).toBe(200);
  // the outage is logged as structured warnings, not raw stack traces of unhandled errors
  expect(stack.worker.output()).not.toMatch(/Unhandled error event|^\s+at \S+ \(/m);
}, 90_000);
