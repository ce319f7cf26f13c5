import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { answerFileReads } from './answer-file-reads.js';
import { startStack, type Stack } from './stack.js';

/**
 * Images as they are made, with the simulator spacing a set's images as the vendor does. The
 * simulator's stream-hold fault stops the set after its first image until the test releases
 * it: whatever the client holds by then was sent before the upstream finished, whatever the
 * machine's speed.
 */
let stack: Stack;
let client: OpenAI;
let key: string;
let accountId: string;
beforeAll(async () => {
  stack = await startStack({ simulator: { SIM_IMAGE_SPACING_MS: '250' } });
  ({ key, accountId } = await stack.newKey());
  client = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: key, maxRetries: 0 });
}, 60_000);
afterAll(async () => stack?.close());
beforeEach(async () => {
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
});

const PRICE = 35_000;
const SET = {
  model: 'vendor-gen-5-0-260128',
  prompt: 'a coast in 3 images, one lighthouse each',
  size: '2048x2048',
  sequential_image_generation: 'auto',
  sequential_image_generation_options: { max_images: 3 },
} as const;

type Event = { type: string; partial_image_index?: number; usage?: { generated_images: number }; failed?: unknown[] };

const streamOf = (body: Record<string, unknown>) =>
  client.images.generate({ ...(body as unknown as OpenAI.Images.ImageGenerateParamsStreaming), stream: true }).withResponse();

/** The set's upstream call is held after its first image: not over, and not in the call log yet. */
async function heldMidSet() {
  await waitFor(async () => (await stack.simStats()).holding === 1 || undefined, 20_000, 'the set held after its first image');
  expect(await stack.simCalls()).toEqual([]);
}

/** Requests of the api waiting for an image job (its relay_waiting_requests gauge). */
async function waitingForImages() {
  const metrics = await (await fetch(`${stack.url}/metrics`)).text();
  return Number(/^relay_waiting_requests\{[^}]*queue="images"[^}]*\} (\d+)$/m.exec(metrics)?.[1]);
}

test('the first image reaches the client while the upstream set is still unfinished; the rest follow the release', async () => {
  await stack.fault({ type: 'stream-hold', api: 'images', after: 1 });
  const { data: stream } = await streamOf(SET);
  const events = stream[Symbol.asyncIterator]();
  const first = (await events.next()).value as Event;
  expect(first).toMatchObject({ type: 'image_generation.partial_image', partial_image_index: 0 });
  await heldMidSet();
  expect(await stack.release()).toBe(1);
  const rest: Event[] = [];
  for (let next = await events.next(); !next.done; next = await events.next()) rest.push(next.value as Event);
  expect(rest.map((e) => e.partial_image_index ?? e.type)).toEqual([1, 2, 'image_generation.completed']);
  expect(rest[2]!.usage).toMatchObject({ generated_images: 3 });
  const [call] = await stack.simCalls();
  expect(call).toMatchObject({ api: 'images', status: 200 });
});

test('a client that leaves after the first image, the upstream still making the set: all of it at its Location, charged once per image', async () => {
  const before = await stack.account(accountId);
  await stack.fault({ type: 'stream-hold', api: 'images', after: 1 });
  const leave = new AbortController();
  const res = await fetch(`${stack.url}/v1/images/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...SET, stream: true }),
    signal: leave.signal,
  });
  expect(res.status).toBe(200);
  const location = res.headers.get('location')!;
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
  expect(text).toContain('"partial_image_index":0');
  await heldMidSet();
  expect(await waitingForImages()).toBe(1);
  leave.abort();
  // the api has seen the client go before the upstream may go on
  await waitFor(async () => (await waitingForImages()) === 0 || undefined, 20_000, 'the api to see the client leave');
  expect(await stack.release()).toBe(1);
  const job = await waitFor(
    async () => {
      const answer = await fetch(`${stack.url}${location}`, { headers: { authorization: `Bearer ${key}` } });
      return answer.status === 200
        ? ((await answer.json()) as { data: Array<{ url: string }>; usage: { generated_images: number } })
        : undefined;
    },
    20_000,
    'the job to finish',
  );
  expect(job.data).toHaveLength(3);
  expect(job.usage.generated_images).toBe(3);
  for (const image of job.data) expect((await fetch(image.url)).status).toBe(200);
  const after = await stack.account(accountId);
  expect(before.balance - after.balance).toBe(3 * PRICE);
  expect(after.reserved).toBe(0);
  const jobId = location.split('/').at(-1);
  expect(after.ledger.filter((e) => e.jobId === jobId && e.type === 'settle').map((e) => e.charged)).toEqual([3 * PRICE]);
});

test('a content refusal in the middle of a streamed set: no event for it, named in completed.failed, the set goes on, charged for what came', async () => {
  const before = await stack.account(accountId);
  await stack.fault({ type: 'image-error', api: 'images', index: 1, code: 'OutputImageSensitiveContentDetected' });
  const { data: stream, response } = await streamOf(SET);
  const events: Event[] = [];
  for await (const event of stream) events.push(event as Event);
  expect(events.map((e) => e.partial_image_index ?? e.type)).toEqual([0, 2, 'image_generation.completed']);
  expect(events[2]).toMatchObject({
    usage: { generated_images: 2 },
    failed: [{ index: 1, code: 'OutputImageSensitiveContentDetected', message: expect.any(String) as string }],
  });
  const job = (await (
    await fetch(`${stack.url}${response.headers.get('location')!}`, { headers: { authorization: `Bearer ${key}` } })
  ).json()) as { data: unknown[]; failed: Array<{ index: number }> };
  expect(job.data).toHaveLength(2);
  expect(job.failed.map((f) => f.index)).toEqual([1]);
  const after = await stack.account(accountId);
  expect(before.balance - after.balance).toBe(2 * PRICE);
  expect(after.reserved).toBe(0);
});

test('b64_json as the set streams: each image its worker stored is published with its event, so the api does not read it back', async () => {
  const before = await answerFileReads(stack.url);
  const { data: stream } = await streamOf({ ...SET, response_format: 'b64_json' });
  const events: Array<Event & { b64_json?: string; url?: string }> = [];
  for await (const event of stream) events.push(event as Event & { b64_json?: string; url?: string });
  expect(events.map((e) => e.partial_image_index ?? e.type)).toEqual([0, 1, 2, 'image_generation.completed']);
  for (const event of events) {
    // the bytes the event carries are the stored file's
    const stored = Buffer.from(await (await fetch(event.url!)).arrayBuffer());
    expect(Buffer.from(event.b64_json!, 'base64').equals(stored)).toBe(true);
  }
  // three partial images handed over; completed carries the last one again, read back from the store
  const after = await answerFileReads(stack.url);
  expect({ fresh: after.fresh - before.fresh, store: after.store - before.store }).toEqual({ fresh: 3, store: 1 });
});
