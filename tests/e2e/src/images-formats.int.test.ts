import sharp from 'sharp';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { postJson, startStack, type Stack } from './stack.js';

/** Formats the vendor cannot make: converted by the worker, stored and answered as what they are. */

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack();
  ({ key } = await stack.newKey());
}, 60_000);
afterAll(async () => stack?.close());

interface ImagesBody {
  data: Array<{ url: string; b64_json?: string; size: string }>;
  output_format?: string;
  usage: { generated_images: number; output_tokens: number };
}

async function generate(body: Record<string, unknown>) {
  const res = await postJson(`${stack.url}/v1/images/generations`, { prompt: 'a lighthouse at dusk', ...body }, key);
  const answer = (await res.json()) as ImagesBody;
  expect(res.status, JSON.stringify(answer)).toBe(200);
  const file = await fetch(answer.data[0]!.url);
  expect(file.status).toBe(200);
  return { answer, file: Buffer.from(await file.arrayBuffer()), contentType: file.headers.get('content-type') };
}

// the simulator refuses output_format on a model without it, as the vendor does: a 200 says none was sent
test('a JPEG-only model asked for png: the vendor is asked for what it makes, the relay stores a real PNG', async () => {
  const { answer, file, contentType } = await generate({ model: 'vendor-gen-4-5-251128', size: '2304x1728', output_format: 'png' });
  expect(file.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(await sharp(file).metadata()).toMatchObject({ format: 'png', width: 2304, height: 1728 });
  expect(contentType).toBe('image/png');
  expect(answer.data[0]!.url).toMatch(/-0\.png$/);
  expect(answer).toMatchObject({ output_format: 'png', data: [{ size: '2304x1728' }] });
  expect(answer.usage).toMatchObject({ generated_images: 1, output_tokens: Math.round((2304 * 1728) / 256) });
});

test('webp with output_compression: a smaller file at a lower level, as b64_json too', async () => {
  const ask = { model: 'vendor-gen-5-0-260128', prompt: 'a bee on a flower', size: '2048x2048', output_format: 'webp' };
  const high = await generate({ ...ask, output_compression: 95 });
  const low = await generate({ ...ask, output_compression: 5, response_format: 'b64_json' });
  for (const { answer, file, contentType } of [high, low]) {
    expect(file.subarray(0, 4).toString('latin1') + file.subarray(8, 12).toString('latin1')).toBe('RIFFWEBP');
    expect(await sharp(file).metadata()).toMatchObject({ format: 'webp', width: 2048, height: 2048 });
    expect(contentType).toBe('image/webp');
    expect(answer).toMatchObject({ output_format: 'webp', data: [{ url: expect.stringMatching(/-0\.webp$/), size: '2048x2048' }] });
  }
  expect(Buffer.from(low.answer.data[0]!.b64_json!, 'base64').equals(low.file)).toBe(true);
  expect(low.file.length).toBeLessThan(high.file.length);
});

test('output_compression with png is a 400 naming it', async () => {
  const res = await postJson(
    `${stack.url}/v1/images/generations`,
    { model: 'vendor-gen-4-0-250828', prompt: 'x', output_format: 'png', output_compression: 50 },
    key,
  );
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: { param: 'output_compression', message: expect.stringContaining('jpeg and webp') } });
});
