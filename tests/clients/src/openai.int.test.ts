import OpenAI from 'openai';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { imageDimensions } from '@relay/simulator';
import { startClientStack, type Stack } from './client-stack.js';

let stack: Stack;
let client: OpenAI;
let accountId: string;
beforeAll(async () => {
  stack = await startClientStack();
  const created = await stack.newKey();
  accountId = created.accountId;
  // what a user writes: a base URL and a key
  client = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: created.key, maxRetries: 0 });
}, 60_000);
afterAll(async () => stack?.close());

test('models.list() shows the catalog in OpenAI shape', async () => {
  const ids: string[] = [];
  for await (const model of client.models.list()) {
    expect(model).toMatchObject({ object: 'model', owned_by: expect.any(String), created: expect.any(Number) });
    ids.push(model.id);
  }
  expect(ids).toEqual(expect.arrayContaining(['vendor-gen-5-0-260128', 'vendor-edit-3-0-i2i-250628', 'vendor-2.5-flash-preview-tts']));
});

test('models.retrieve() finds a model and answers an unknown id with NotFoundError', async () => {
  expect(await client.models.retrieve('vendor-gen-4-0-250828')).toMatchObject({ id: 'vendor-gen-4-0-250828', object: 'model' });
  const missing = await client.models.retrieve('dall-e-3').catch((error: unknown) => error);
  expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
  expect((missing as InstanceType<typeof OpenAI.NotFoundError>).type).toBe('not_found_error');
});

test('images.generate({ n: 2 }) returns two stored images, charged as two', async () => {
  const before = await stack.account(accountId);
  const result = await client.images.generate({ model: 'vendor-gen-4-0-250828', prompt: 'two foxes', n: 2, size: '2048x2048' });
  expect(result.data).toHaveLength(2);
  const urls = result.data!.map((image) => image.url!);
  expect(new Set(urls).size).toBe(2);
  for (const url of urls) {
    const file = Buffer.from(await (await fetch(url)).arrayBuffer());
    expect(imageDimensions(file)).toEqual({ width: 2048, height: 2048 });
  }
  const after = await stack.account(accountId);
  expect(before.balance - after.balance).toBe(2 * 30_000);
});

test('b64_json with the fields OpenAI clients send (quality, style, user) and n', async () => {
  const result = await client.images.generate({
    model: 'vendor-gen-5-0-260128',
    prompt: 'a compass rose',
    n: 2,
    quality: 'hd',
    style: 'natural',
    user: 'end-user-42',
    response_format: 'b64_json',
  });
  expect(result.data).toHaveLength(2);
  for (const image of result.data!) {
    expect(imageDimensions(Buffer.from(image.b64_json!, 'base64'))).toEqual({ width: 2048, height: 2048 });
  }
  const usage = await stack.admin('GET', `/accounts/${accountId}/usage?user=end-user-42`);
  const { entries } = (await usage.json()) as { entries: Array<{ type: string; user?: string; charged: number }> };
  expect(entries.map((e) => e.type)).toEqual(['settle', 'reserve']);
  expect(entries.every((e) => e.user === 'end-user-42')).toBe(true);
  expect(entries[0]!.charged).toBe(2 * 35_000);
});

test("vendor fields ride in the SDK's body option", async () => {
  const kite = { model: 'vendor-gen-5-0-260128', prompt: 'a kite' };
  const result = await client.images.generate(kite, { body: { ...kite, watermark: false, response_format: 'b64_json' } });
  expect(imageDimensions(Buffer.from(result.data![0]!.b64_json!, 'base64'))).toEqual({ width: 2048, height: 2048 });
});

test('errors arrive as the SDK classes: a value OpenAI refuses, a typo, n out of range', async () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ quality: 'ultra' }, 'quality'],
    [{ style: 'cartoon' }, 'style'],
    [{ n: 11 }, 'n'],
    [{ n: 0 }, 'n'],
    [{ watermarks: false }, 'watermarks'],
  ];
  for (const [extra, param] of cases) {
    const body = { model: 'vendor-gen-4-0-250828', prompt: 'x', ...extra };
    const failure = await client.images.generate(body as never, { body }).catch((error: unknown) => error);
    expect(failure, param).toBeInstanceOf(OpenAI.BadRequestError);
    expect((failure as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(param);
  }
});
