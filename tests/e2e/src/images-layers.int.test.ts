import sharp from 'sharp';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { LedgerEntry } from '@relay/billing';
import { renderImage } from '@relay/simulator';
import { postJson, startStack, type Stack } from './stack.js';

/** layer_decomposition through the relay: every layer stored as an image of the job, described, and charged as delivered. */

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(async () => stack?.close());

const PRO = 'vendor-gen-5-0-pro-260628';
const PRICE = 90_000;
const input = `data:image/png;base64,${renderImage({ width: 1024, height: 1024, format: 'png', watermark: false, hue: 1 }).toString('base64')}`;

interface Layer {
  url: string;
  b64_json?: string;
  size: string;
  z_index: number;
  bounding_box: { absolute: number[]; normalized: number[] };
  name: string;
}
interface LayersBody {
  data: Array<{ url: string; size: string; layers?: Layer[] }>;
  usage: { generated_images: number };
}

test('5.0 pro: the base image in data, its layers under layers, each a stored PNG of its own; the set charged image by image', async () => {
  const { key, accountId } = await stack.newKey({ balance: 10_000_000 });
  const res = await postJson(
    `${stack.url}/v1/images/generations`,
    { model: PRO, prompt: 'split the poster into 2 layers', image: input, size: '2048x2048', layer_decomposition: true },
    key,
  );
  const answer = (await res.json()) as LayersBody;
  expect(res.status, JSON.stringify(answer)).toBe(200);
  expect(answer.data).toHaveLength(1);
  const [entry] = answer.data;
  expect(entry!.url).toMatch(/-0\.png$/);
  expect(entry!.layers).toEqual([
    expect.objectContaining({ z_index: 1, size: '1024x1024', name: 'background', url: expect.stringMatching(/-1\.png$/) }),
    expect.objectContaining({ z_index: 2, bounding_box: { absolute: [1024, 1024, 2048, 2048], normalized: [500, 500, 1000, 1000] } }),
  ]);
  for (const layer of entry!.layers!) {
    const file = Buffer.from(await (await fetch(layer.url)).arrayBuffer());
    expect(await sharp(file).metadata()).toMatchObject({ format: 'png', width: 1024, height: 1024, hasAlpha: true });
  }
  expect(answer.usage.generated_images).toBe(3);

  const { balance, reserved, ledger } = await stack.account(accountId);
  const job = (type: LedgerEntry['type']) => ledger.filter((e) => e.type === type && e.jobId);
  expect(job('reserve')).toEqual([expect.objectContaining({ amount: -17 * PRICE, units: '17 images' })]);
  expect(job('settle')).toEqual([expect.objectContaining({ charged: 3 * PRICE, units: '3 images' })]);
  expect({ balance, reserved }).toEqual({ balance: 10_000_000 - 3 * PRICE, reserved: 0 });
});

test.each([
  [{ model: PRO, prompt: 'x', layer_decomposition: true }, 'layer_decomposition'],
  [{ model: PRO, prompt: 'x', layer_decomposition: true, image: [input, input] }, 'layer_decomposition'],
  [{ model: 'vendor-gen-5-5-261028', prompt: 'x', layer_decomposition: true, image: input }, 'layer_decomposition'],
])('refused before any call or reservation: 400 naming %#', async (body, param) => {
  const { key } = await stack.newKey();
  const res = await postJson(`${stack.url}/v1/images/generations`, body, key);
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', param, message: expect.stringContaining('layer') } });
});
