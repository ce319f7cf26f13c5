import { afterAll, beforeAll, expect, test } from 'vitest';
import { postJson, startStack, type Stack } from './stack.js';

let stack: Stack;
beforeAll(async () => {
  // one call at a time, 200 ms each: about five jobs a second
  stack = await startStack({ simulator: { SIM_LATENCY_MS: '200' }, worker: { IMAGES_MAX_CONCURRENT: '1' } });
}, 60_000);
afterAll(async () => stack?.close());

test('a synchronous request that could not even start within its wait gets 503 + Retry-After; async ones are still taken', async () => {
  const { key } = await stack.newKey();
  const send = (prefer?: string) =>
    postJson(`${stack.url}/v1/images/generations`, { model: 'vendor-gen-4-0-250828', prompt: 'a tide' }, key, prefer ? { Prefer: prefer } : {});
  for (let i = 0; i < 6; i++) expect((await send()).status).toBe(200);
  const queued = await Promise.all(Array.from({ length: 20 }, () => send('respond-async')));
  expect(queued.every((r) => r.status === 202)).toBe(true);

  const refused = await send('wait=1');
  expect(refused.status).toBe(503);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/respond-async/);
  expect((await send('respond-async')).status).toBe(202);
}, 30_000);
