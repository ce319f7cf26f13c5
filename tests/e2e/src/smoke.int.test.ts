import { afterAll, beforeAll, expect, test } from 'vitest';
import { postJson, startStack, type Stack } from './stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(async () => stack?.close());

test('smoke', async () => {
  const { key } = await stack.newKey();
  const res = await postJson(`${stack.url}/v1/images/generations`, { model: 'vendor-gen-5-0-260128', prompt: 'a cat' }, key);
  const body = await res.json();
  console.log(res.status, JSON.stringify(body).slice(0, 500));
  expect(res.status).toBe(200);
});
