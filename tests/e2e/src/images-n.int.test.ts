import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { parseFileId } from '@relay/jobs';
import { imageDimensions } from '@relay/simulator';
import { postJson, startStack, type Stack } from './stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ tuning: { api: { jobAttempts: 3 } } });
}, 60_000);
afterAll(async () => stack?.close());
beforeEach(async () => {
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
});

interface ImagesBody {
  data: Array<{ url: string; size: string }>;
  usage: { generated_images: number };
  failed?: Array<{ index: number; code: string; message: string }>;
  error?: { code: string; param: string | null };
}

const PRICE_4_0 = 30_000;
async function generate(body: Record<string, unknown>, balance?: number) {
  const { key, accountId } = await stack.newKey(balance === undefined ? {} : { balance });
  const res = await postJson(`${stack.url}/v1/images/generations`, { model: 'vendor-gen-4-0-250828', ...body }, key);
  return { res, answer: (await res.json()) as ImagesBody, accountId };
}
const indexes = (answer: ImagesBody) => answer.data.map((d) => parseFileId(d.url.split('/files/')[1]!)!.index);

test('n: 3 is three upstream calls in one job: three stored images, reserved and charged as three', async () => {
  const { res, answer, accountId } = await generate({ prompt: 'a fox', n: 3 });
  expect(res.status).toBe(200);
  expect(indexes(answer)).toEqual([0, 1, 2]);
  expect(new Set(answer.data.map((d) => parseFileId(d.url.split('/files/')[1]!)!.jobId)).size).toBe(1);
  for (const entry of answer.data)
    expect(imageDimensions(Buffer.from(await (await fetch(entry.url)).arrayBuffer()))).toEqual({ width: 2048, height: 2048 });
  expect((await stack.simStats()).requests.images).toBe(3);
  const { ledger } = await stack.account(accountId);
  expect(ledger.find((e) => e.type === 'reserve')).toMatchObject({ amount: -3 * PRICE_4_0, units: '3 images' });
  expect(ledger.find((e) => e.type === 'settle')).toMatchObject({ charged: 3 * PRICE_4_0 });
});

test('n sets of a sequential generation: reserved as n x max_images, every image in one answer', async () => {
  const { res, answer, accountId } = await generate({
    prompt: 'a comic strip in 3 images',
    n: 2,
    sequential_image_generation: 'auto',
    sequential_image_generation_options: { max_images: 4 },
  });
  expect(res.status).toBe(200);
  expect(indexes(answer)).toEqual([0, 1, 2, 3, 4, 5]);
  expect(answer.usage.generated_images).toBe(6);
  const { ledger } = await stack.account(accountId);
  expect(ledger.find((e) => e.type === 'reserve')).toMatchObject({ amount: -8 * PRICE_4_0 });
  expect(ledger.find((e) => e.type === 'settle')).toMatchObject({ charged: 6 * PRICE_4_0, amount: 2 * PRICE_4_0 });
});

test('n x max_images beyond 15 is refused before anything is reserved', async () => {
  const { res, answer } = await generate({ prompt: 'x', n: 2, sequential_image_generation: 'auto' });
  expect(res.status).toBe(400);
  expect(answer.error).toMatchObject({ param: 'n' });
});

test('the balance must cover all n: money for two of three is a 402', async () => {
  const { res } = await generate({ prompt: 'x', n: 3 }, 2 * PRICE_4_0);
  expect(res.status).toBe(402);
  expect((await stack.simStats()).requests.images).toBe(0);
});

test('one generation refused among three: two delivered, the refusal listed in failed, two charged', async () => {
  await stack.fault({ type: 'error', api: 'images', status: 400, code: 'InputTextSensitiveContentDetected' });
  const { res, answer, accountId } = await generate({ prompt: 'three boats', n: 3 });
  expect(res.status).toBe(200);
  expect(answer.data).toHaveLength(2);
  expect(answer.failed).toEqual([expect.objectContaining({ code: 'InputTextSensitiveContentDetected' })]);
  expect([...indexes(answer), answer.failed![0]!.index].sort()).toEqual([0, 1, 2]);
  expect((await stack.simStats()).requests.images).toBe(3);
  expect((await stack.account(accountId)).spent).toBe(2 * PRICE_4_0);
});

test('every generation refused: 400 with the upstream code, nothing charged', async () => {
  await stack.fault({ type: 'error', api: 'images', status: 400, code: 'InputTextSensitiveContentDetected', times: 2 });
  const { res, answer, accountId } = await generate({ prompt: 'x', n: 2 });
  expect(res.status).toBe(400);
  expect(answer.error).toMatchObject({ code: 'InputTextSensitiveContentDetected' });
  expect((await stack.account(accountId)).spent).toBe(0);
});

test('a generation that fails transiently is retried alone: the answered ones are not generated again', async () => {
  await stack.fault({ type: 'error', api: 'images', status: 500 });
  const { res, answer } = await generate({ prompt: 'x', n: 3 });
  expect(res.status).toBe(200);
  expect(answer.data).toHaveLength(3);
  expect((await stack.simStats()).statuses).toEqual({ 200: 3, 500: 1 });
});

test('a generation failing on every attempt is given up while the others are delivered', async () => {
  // three attempts: the first call of the first attempt passes (a latency of 0 is its fault),
  // its sibling fails, and so does that generation's call in each retry
  await stack.fault([
    { type: 'latency', api: 'images', ms: 0 },
    { type: 'error', api: 'images', status: 503, times: 3 },
  ]);
  const { res, answer, accountId } = await generate({ prompt: 'x', n: 2 });
  expect(res.status).toBe(200);
  expect(answer.data).toHaveLength(1);
  expect(answer.failed).toEqual([expect.objectContaining({ code: 'upstream_failed' })]);
  expect((await stack.simStats()).statuses).toEqual({ 200: 1, 503: 3 });
  expect((await stack.account(accountId)).spent).toBe(PRICE_4_0);
});
