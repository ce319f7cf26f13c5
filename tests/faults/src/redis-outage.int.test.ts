import { afterAll, beforeAll, expect, test } from 'vitest';
import { startStack, type Stack } from '@relay/e2e';
import { finalAnswer, generate, settlementsPerJob } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ ownRedis: true });
}, 60_000);
afterAll(async () => stack?.close());

test('Redis stopped and started under load (AOF on): 503 at once meanwhile, no accepted job lost, none charged twice', async () => {
  const { key, accountId } = await stack.newKey();
  await stack.fault({ type: 'latency', api: 'images', ms: 800, times: 10 });
  const accepted = await Promise.all(Array.from({ length: 10 }, () => generate(stack, key, undefined, { Prefer: 'respond-async' })));
  const jobIds = await Promise.all(accepted.map(async (res) => ((await res.json()) as { id: string }).id));
  expect(accepted.every((res) => res.status === 202)).toBe(true);

  await stack.redis.stop();
  const started = Date.now();
  const refused = await generate(stack, key);
  expect(Date.now() - started).toBeLessThan(2_000);
  expect(refused.status).toBe(503);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(((await refused.json()) as { error: { type: string } }).error.type).toBe('server_error');
  expect((await fetch(`${stack.url}/healthz`)).status).toBe(200);
  expect((await fetch(`${stack.url}/readyz`)).status).toBe(503);

  await new Promise((resolve) => setTimeout(resolve, 1_000));
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
