import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateImage } from 'ai';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { imageDimensions } from '@relay/simulator';
import { startClientStack, type Stack } from './client-stack.js';

let stack: Stack;
let apiKey: string;
beforeAll(async () => {
  stack = await startClientStack();
  ({ key: apiKey } = await stack.newKey());
}, 60_000);
afterAll(async () => stack?.close());

const MODEL = 'vendor-gen-4-0-250828';
const dimensions = (bytes: Uint8Array) => imageDimensions(Buffer.from(bytes));

test('@ai-sdk/openai: generateImage (it always sends n and response_format b64_json)', async () => {
  const relay = createOpenAI({ baseURL: `${stack.url}/v1`, apiKey });
  const { images } = await generateImage({
    model: relay.image(MODEL),
    prompt: 'a lighthouse at dusk',
    n: 2,
    size: '2048x2048',
    maxRetries: 0,
  });
  expect(images).toHaveLength(2);
  for (const image of images) expect(dimensions(image.uint8Array)).toEqual({ width: 2048, height: 2048 });
});

test('@ai-sdk/openai-compatible: generateImage downloads the url answer', async () => {
  const relay = createOpenAICompatible({ name: 'relay', baseURL: `${stack.url}/v1`, apiKey });
  const { images } = await generateImage({ model: relay.imageModel(MODEL), prompt: 'a red kite', n: 2, size: '2304x1728', maxRetries: 0 });
  expect(images).toHaveLength(2);
  for (const image of images) expect(dimensions(image.uint8Array)).toEqual({ width: 2304, height: 1728 });
});

test('@ai-sdk/openai-compatible: the b64_json path through providerOptions', async () => {
  const relay = createOpenAICompatible({ name: 'relay', baseURL: `${stack.url}/v1`, apiKey });
  const { image } = await generateImage({
    model: relay.imageModel(MODEL),
    prompt: 'a paper boat',
    providerOptions: { relay: { response_format: 'b64_json', watermark: false } },
    maxRetries: 0,
  });
  expect(dimensions(image.uint8Array)).toEqual({ width: 2048, height: 2048 });
});
