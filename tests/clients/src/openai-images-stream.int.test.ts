import OpenAI from 'openai';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { imageDimensions } from '@relay/simulator';
import { waitFor } from '@relay/testkit';
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

const SET = {
  model: 'vendor-gen-5-0-260128',
  prompt: 'a coast in 3 images, one lighthouse each',
  size: '2048x2048',
  sequential_image_generation: 'auto',
  sequential_image_generation_options: { max_images: 3 },
} as const;

/** The SDK's streaming overload, with the vendor's fields it does not type riding in the body. */
const streamOf = (body: Record<string, unknown>) =>
  client.images.generate({ ...(body as unknown as OpenAI.Images.ImageGenerateParamsStreaming), stream: true });

type Event = {
  type: string;
  partial_image_index?: number;
  b64_json?: string;
  url?: string;
  usage?: Record<string, number>;
  failed?: unknown[];
};

test('stream: each image of a set as image_generation.partial_image, iterated as the SDK does, then completed with usage', async () => {
  const before = await stack.account(accountId);
  const stream = await streamOf({ ...SET, response_format: 'b64_json' });
  const events: Event[] = [];
  for await (const event of stream) events.push(event as Event);
  expect(events.map((e) => e.type)).toEqual([
    'image_generation.partial_image',
    'image_generation.partial_image',
    'image_generation.partial_image',
    'image_generation.completed',
  ]);
  expect(events.slice(0, 3).map((e) => e.partial_image_index)).toEqual([0, 1, 2]);
  for (const event of events) expect(imageDimensions(Buffer.from(event.b64_json!, 'base64'))).toEqual({ width: 2048, height: 2048 });
  expect(events[3]!.usage).toMatchObject({ generated_images: 3, output_tokens: 3 * 16_384 });
  const after = await stack.account(accountId);
  expect(before.balance - after.balance).toBe(3 * 35_000);
  expect(after.reserved).toBe(0);
});

test('stream with links: each event names the stored image', async () => {
  const stream = await streamOf(SET);
  const urls: string[] = [];
  for await (const event of stream) if (event.type === 'image_generation.partial_image') urls.push((event as Event).url!);
  expect(urls).toHaveLength(3);
  for (const url of urls)
    expect(imageDimensions(Buffer.from(await (await fetch(url)).arrayBuffer()))).toEqual({ width: 2048, height: 2048 });
});

test('a stream that breaks after one image: that image is delivered and charged, the rest named as failed, no second call', async () => {
  const before = await stack.account(accountId);
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
  await stack.fault({ type: 'stream-drop', api: 'images', after: 1 } as never);
  const stream = await streamOf(SET);
  const events: Event[] = [];
  for await (const event of stream) events.push(event as Event);
  expect(events.map((e) => e.type)).toEqual(['image_generation.partial_image', 'image_generation.completed']);
  expect(events[1]).toMatchObject({ usage: { generated_images: 1 }, failed: [{ index: 1, code: 'upstream_failed' }] });
  expect((await stack.simStats()).requests.images).toBe(1);
  const after = await stack.account(accountId);
  expect(before.balance - after.balance).toBe(35_000);
});

test('a model the vendor does not stream sends its image as the completed event', async () => {
  const stream = await streamOf({ model: 'vendor-gen-3-0-t2i-250415', prompt: 'a lighthouse', response_format: 'b64_json' });
  const events: Event[] = [];
  for await (const event of stream) events.push(event as Event);
  expect(events.map((e) => e.type)).toEqual(['image_generation.completed']);
  expect(imageDimensions(Buffer.from(events[0]!.b64_json!, 'base64'))?.width).toBeGreaterThan(0);
});

test('a client that leaves mid-stream loses nothing: the set finishes, is charged, and is at the job link', async () => {
  const before = await stack.account(accountId);
  const abort = new AbortController();
  const res = await fetch(`${stack.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...SET, stream: true }),
    signal: abort.signal,
  });
  expect(res.status).toBe(200);
  const location = res.headers.get('location')!;
  expect(location).toMatch(/^\/v1\/jobs\/img_/);
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
  expect(text).toContain('image_generation.partial_image');
  abort.abort();
  const done = await waitFor(
    async () => {
      const job = await fetch(`${stack.url}${location}`, { headers: { authorization: `Bearer ${key}` } });
      return job.status === 200 ? ((await job.json()) as { data: unknown[] }) : undefined;
    },
    20_000,
    'the job to finish',
  );
  expect(done?.data).toHaveLength(3);
  const after = await stack.account(accountId);
  expect(before.balance - after.balance).toBe(3 * 35_000);
});
