import { afterAll, beforeAll, expect, test } from 'vitest';
import { postJson, startStack, type Stack } from './stack.js';

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack({ tuning: { worker: { resultMaxBytes: 20_000 } } });
  ({ key } = await stack.newKey());
}, 60_000);
afterAll(async () => stack?.close());

test('a result over resultMaxBytes fails at once with 502, without retrying the paid generation', async () => {
  const res = await postJson(`${stack.url}/v1/images/generations`, { model: 'vendor-gen-4-0-250828', prompt: 'a map' }, key);
  expect(res.status).toBe(502);
  expect(res.headers.get('x-should-retry')).toBe('false');
  const body = (await res.json()) as { error: { message: string } };
  expect(body.error.message).toMatch(/larger than this relay accepts/);
  const stats = (await (await fetch(`${stack.sim.url}/_sim/stats`)).json()) as { requests: { images: number } };
  expect(stats.requests.images).toBe(1);
});
