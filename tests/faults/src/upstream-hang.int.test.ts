import { afterAll, beforeAll, expect, test } from 'vitest';
import { startStack, type Stack } from '@relay/e2e';
import { generate, workerCounter } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ tuning: { worker: { upstreamTimeoutMs: 1_000 } } });
}, 60_000);
afterAll(async () => stack?.close());

test('a hanging upstream: the call times out and is tried again', async () => {
  const { key } = await stack.newKey();
  await stack.fault({ type: 'hang', api: 'images' });
  const timeoutsBefore = await workerCounter(stack, 'relay_upstream_calls_total', { status: 'timeout' });
  const res = await generate(stack, key);
  expect(res.status).toBe(200);
  // the worker's own record: its `upstreamTimeoutMs` deadline ended the first call (not a reset)
  expect(await workerCounter(stack, 'relay_upstream_calls_total', { status: 'timeout' })).toBe(timeoutsBefore + 1);
  // and the upstream's: the relay hung up on the first call, then called again
  const [hung, retried, ...more] = await stack.simCalls();
  expect(more).toEqual([]);
  expect(hung).toMatchObject({ api: 'images', status: 0 });
  expect(retried).toMatchObject({ api: 'images', status: 200 });
}, 30_000);
