import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { imageDimensions, renderImage } from '@relay/simulator';
import { startClientStack, type Stack } from './client-stack.js';

let stack: Stack;
let client: OpenAI;
let key: string;
let accountId: string;
beforeAll(async () => {
  stack = await startClientStack();
  ({ key, accountId } = await stack.newKey());
  client = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: key, maxRetries: 0 });
}, 60_000);
afterAll(async () => stack?.close());

const png = (hue: number) => renderImage({ width: 64, height: 64, format: 'png', watermark: false, hue });
const simImages = async () => (await stack.simStats()).requests.images;

test('images.edit with one file (toFile): the edit model, one stored image, charged one', async () => {
  const before = await stack.account(accountId);
  const result = await client.images.edit({
    model: 'vendor-edit-3-0-i2i-250628',
    image: await toFile(png(10), 'photo.png', { type: 'image/png' }),
    prompt: 'make it dusk',
  });
  expect(result.data).toHaveLength(1);
  expect(imageDimensions(Buffer.from(await (await fetch(result.data![0]!.url!)).arrayBuffer()))).toBeDefined();
  const after = await stack.account(accountId);
  expect(before.balance - after.balance).toBe(30_000);
  expect(after.reserved).toBe(0);
});

test('images.edit with an array of files (image[] on the wire): references for 4.x, Seedream fields as form fields', async () => {
  const result = await client.images.edit({
    model: 'vendor-gen-4-0-250828',
    image: [await toFile(png(20), 'a.png', { type: 'image/png' }), await toFile(png(30), 'b.png', { type: 'image/png' })],
    prompt: 'blend the two in 2 images',
    response_format: 'b64_json',
    // @ts-expect-error the vendor's fields, sent as the SDK sends any extra field
    sequential_image_generation: 'auto',
    sequential_image_generation_options: { max_images: 2 },
    watermark: false,
  });
  expect(result.data).toHaveLength(2);
  for (const image of result.data!) expect(imageDimensions(Buffer.from(image.b64_json!, 'base64'))).toEqual({ width: 2048, height: 2048 });
});

test('curl with the image field repeated: both files reach the upstream, in order', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'relay-edit-'));
  const [one, two] = [png(3), png(5)];
  expect(one.equals(two)).toBe(false);
  writeFileSync(join(dir, 'one.png'), one);
  writeFileSync(join(dir, 'two.png'), two);
  const { stdout } = await promisify(execFile)('curl', [
    '-s',
    `${stack.url}/v1/images/edits`,
    '-H',
    `Authorization: Bearer ${key}`,
    '-F',
    'model=vendor-gen-5-0-260128',
    '-F',
    'prompt=a postcard of both',
    '-F',
    `image=@${join(dir, 'one.png')}`,
    '-F',
    `image=@${join(dir, 'two.png')}`,
  ]);
  const body = JSON.parse(stdout) as { data: Array<{ url: string }> };
  expect(body.data).toHaveLength(1);
  const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  // the upstream's own record of the call: the model and the hash of each reference image it read
  expect((await stack.simCalls()).at(-1)).toMatchObject({ model: 'seedream-5-0-260128', inputs: [sha(one), sha(two)], status: 200 });
});

test('JSON edits with images[].image_url', async () => {
  const result = (await client.post('/images/edits', {
    body: {
      model: 'vendor-gen-4-5-251128',
      prompt: 'sharper',
      images: [{ image_url: `data:image/png;base64,${png(60).toString('base64')}` }],
    },
  })) as { data: unknown[] };
  expect(result.data).toHaveLength(1);
});

test('stream: image_edit.* events', async () => {
  const stream = await client.images.edit({
    model: 'vendor-gen-5-0-260128',
    image: await toFile(png(70), 'p.png', { type: 'image/png' }),
    prompt: 'a set in 2 images',
    stream: true,
    // @ts-expect-error the vendor's fields
    sequential_image_generation: 'auto',
    sequential_image_generation_options: { max_images: 2 },
  });
  const types: string[] = [];
  for await (const event of stream) types.push(event.type);
  expect(types).toEqual(['image_edit.partial_image', 'image_edit.partial_image', 'image_edit.completed']);
});

test('refused as OpenAI refuses, before anything is held or sent upstream: a mask, the per-model image rules, a file that is no image', async () => {
  const before = await simImages();
  const cases: Array<[() => Promise<unknown>, string]> = [
    [
      async () =>
        client.images.edit({
          model: 'vendor-gen-4-0-250828',
          image: await toFile(png(1), 'a.png', { type: 'image/png' }),
          mask: await toFile(png(2), 'm.png', { type: 'image/png' }),
          prompt: 'x',
        }),
      'mask',
    ],
    [
      async () =>
        client.images.edit({
          model: 'vendor-edit-3-0-i2i-250628',
          image: [await toFile(png(3), 'a.png', { type: 'image/png' }), await toFile(png(4), 'b.png', { type: 'image/png' })],
          prompt: 'x',
        }),
      'image',
    ],
    [
      async () =>
        client.images.edit({
          model: 'vendor-gen-3-0-t2i-250415',
          image: await toFile(png(5), 'a.png', { type: 'image/png' }),
          prompt: 'x',
        }),
      'image',
    ],
    [
      async () =>
        client.images.edit({
          model: 'vendor-gen-4-0-250828',
          image: await toFile(Buffer.from('hello, not a picture'), 'a.png'),
          prompt: 'x',
        }),
      'image[0]',
    ],
    [
      async () =>
        client.images.edit({
          model: 'vendor-gen-4-0-250828',
          image: await toFile(png(6), 'a.png', { type: 'image/png' }),
          prompt: 'x',
          n: 2,
          stream: true,
        }),
      'n',
    ],
  ];
  for (const [call, param] of cases) {
    const error = await call().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(param);
  }
  expect(await simImages()).toBe(before);
  expect((await stack.account(accountId)).reserved).toBe(0);
});
