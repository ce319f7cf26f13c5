import { afterAll, beforeAll, expect, test } from 'vitest';
import { startStack, type Stack } from '@relay/e2e';
import { generate } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ worker: { UPSTREAM_TIMEOUT_MS: '1000' } });
}, 60_000);
afterAll(async () => stack?.close());

test('a hanging upstream: the call times out and is tried again', async () => {
  const { key } = await stack.newKey();
  await stack.fault({ type: 'hang', api: 'images' });
  const started = Date.now();
  const res = await generate(stack, key);
  expect(res.status).toBe(200);
  expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  expect((await stack.simStats()).requests.images).toBe(2);
}, 30_000);
