import { DallEAPIWrapper } from '@langchain/openai';
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

// The wrapper always sends n: 1, quality: "standard" and style: "vivid", and has no hook to drop them.
// Its type lists DALL-E's sizes only, hence the casts; the relay's models take the SPEC's sizes.
test('DallEAPIWrapper with model and size returns a link to the stored image', async () => {
  const tool = new DallEAPIWrapper({ baseUrl: `${stack.url}/v1`, apiKey, model: 'vendor-gen-5-0-260128', size: '2048x2048' as never });
  const url = (await tool.invoke('a lighthouse at dusk')) as string;
  expect(url).toMatch(new RegExp(`^${stack.url}/files/`));
  const file = Buffer.from(await (await fetch(url)).arrayBuffer());
  expect(imageDimensions(file)).toEqual({ width: 2048, height: 2048 });
});

test('DallEAPIWrapper with responseFormat b64_json, n: 2 and a user', async () => {
  const tool = new DallEAPIWrapper({
    baseUrl: `${stack.url}/v1`,
    apiKey,
    model: 'vendor-gen-4-5-251128',
    size: '2304x1728' as never,
    n: 2,
    quality: 'hd',
    style: 'natural',
    user: 'langchain-user',
    responseFormat: 'b64_json',
  });
  const images = (await tool.invoke('two sailing boats')) as Array<{ type: string; image_url: { url: string } }>;
  expect(images).toHaveLength(2);
  for (const image of images) expect(imageDimensions(Buffer.from(image.image_url.url, 'base64'))).toEqual({ width: 2304, height: 1728 });
});
