import { afterAll, beforeAll, expect, test } from 'vitest';
import type { LedgerEntry } from '@relay/billing';
import { loadCatalog } from '@relay/core';
import { postJson, startStack, type Stack } from './stack.js';

/** 5.0 lite's web search: its fee a call, reserved beside the images and charged for the calls whose answer counts a search. */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(async () => stack?.close());

const LITE = 'vendor-gen-5-0-260128';
const { price, webSearchPrice } = loadCatalog({}).imageModels[LITE]!;
const search = { model: LITE, tools: [{ type: 'web_search' }] };
const forJob = (ledger: LedgerEntry[], type: LedgerEntry['type']) => ledger.filter((e) => e.type === type && e.jobId);

async function spend(body: Record<string, unknown>) {
  const { key, accountId } = await stack.newKey({ balance: 1_000_000 });
  const res = await postJson(`${stack.url}/v1/images/generations`, body, key);
  expect(res.status, await res.clone().text()).toBe(200);
  expect(((await res.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
  const account = await stack.account(accountId);
  return { ...account, reserve: forJob(account.ledger, 'reserve'), settle: forJob(account.ledger, 'settle') };
}

test('the built-in catalog prices the search (a fee per call, apart from the images)', () => {
  expect(webSearchPrice).toBeGreaterThan(0);
});

test('n 2 with the search: a fee reserved per call, and charged per call, however many searches each ran', async () => {
  const { reserve, settle, balance, reserved } = await spend({ ...search, prompt: 'the weather today, 3 searches', n: 2 });
  expect(reserve).toEqual([expect.objectContaining({ amount: -(2 * price + 2 * webSearchPrice), units: '2 images, 2 web searches' })]);
  expect(settle).toEqual([expect.objectContaining({ charged: 2 * price + 2 * webSearchPrice, units: '2 images, 2 web searches' })]);
  expect({ balance, reserved }).toEqual({ balance: 1_000_000 - 2 * price - 2 * webSearchPrice, reserved: 0 });
});

test('a call whose answer counts no search pays no fee: the reserved fee is given back', async () => {
  const { reserve, settle, balance } = await spend({ ...search, prompt: 'a plain red ball, 0 searches' });
  expect(reserve).toEqual([expect.objectContaining({ amount: -(price + webSearchPrice) })]);
  expect(settle).toEqual([expect.objectContaining({ charged: price, amount: webSearchPrice, units: '1 images' })]);
  expect(balance).toBe(1_000_000 - price);
});

test('streamed, the fee is read from the completed event', async () => {
  const { key, accountId } = await stack.newKey({ balance: 1_000_000 });
  const res = await postJson(`${stack.url}/v1/images/generations`, { ...search, prompt: 'a news poster', stream: true }, key);
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('image_generation.completed');
  const { ledger, balance } = await stack.account(accountId);
  expect(forJob(ledger, 'settle')).toEqual([
    expect.objectContaining({ charged: price + webSearchPrice, units: '1 images, 1 web searches' }),
  ]);
  expect(balance).toBe(1_000_000 - price - webSearchPrice);
});

test('the search on a model without it is a 400 naming tools, before any reservation', async () => {
  const { key, accountId } = await stack.newKey({ balance: 1_000_000 });
  const res = await postJson(`${stack.url}/v1/images/generations`, { ...search, model: 'vendor-gen-4-5-251128', prompt: 'x' }, key);
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: { param: 'tools', message: expect.stringContaining(LITE) } });
  expect(await stack.account(accountId)).toMatchObject({ balance: 1_000_000, reserved: 0 });
});
