import OpenAI from 'openai';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { imageDimensions } from '@relay/simulator';
import { startStack, type Stack } from './stack.js';

let stack: Stack;
let client: OpenAI;
beforeAll(async () => {
  stack = await startStack();
  const { key } = await stack.newKey();
  client = new OpenAI({ apiKey: key, baseURL: `${stack.url}/v1`, maxRetries: 0 });
}, 60_000);
afterAll(async () => stack?.close());

test('the official openai SDK generates an image through the relay, vendor fields in its body options', async () => {
  const body = {
    model: 'vendor-gen-5-0-260128',
    prompt: 'a watercolour fox in 2 images',
    size: '2K',
    response_format: 'url',
    watermark: false,
    sequential_image_generation: 'auto',
    sequential_image_generation_options: { max_images: 2 },
  };
  const result = await client.images.generate({ model: body.model, prompt: body.prompt }, { body });
  expect(result.data).toHaveLength(2);
  for (const image of result.data ?? []) {
    const file = Buffer.from(await (await fetch(image.url!)).arrayBuffer());
    expect(imageDimensions(file)).toEqual({ width: 2048, height: 2048 });
  }
});

test('b64_json decodes through the SDK, and its errors arrive as APIError with the param', async () => {
  const result = await client.images.generate({ model: 'vendor-gen-4-0-250828', prompt: 'a compass', response_format: 'b64_json' });
  expect(imageDimensions(Buffer.from(result.data![0]!.b64_json!, 'base64'))).toEqual({ width: 2048, height: 2048 });

  const failure = await client.images
    .generate({ model: 'vendor-gen-4-0-250828', prompt: 'x' }, { body: { model: 'vendor-gen-4-0-250828', prompt: 'x', seed: 3 } })
    .catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
  expect((failure as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('seed');
});
