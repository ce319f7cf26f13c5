import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { loadSimulatorConfig } from './config.js';
import type { FaultInput } from './faults.js';
import { imageDimensions } from '@relay/core';
import { startSimulator, type RunningSimulator } from './server.js';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator(loadSimulatorConfig({ SIM_PORT: '0', SIM_MAX_IPM: '0' }));
});
afterAll(async () => sim?.close());

const ark = (body: Record<string, unknown>, signal?: AbortSignal) =>
  fetch(`${sim.url}/api/v3/images/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sim-key' },
    body: JSON.stringify(body),
    signal,
  });
const control = (method: string, path: string, body: unknown) =>
  fetch(`${sim.url}/_sim/${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const fault = (f: FaultInput) => control('POST', 'faults', f);

const set = (count: number, extra: Record<string, unknown> = {}) => ({
  model: 'seedream-4-0-250828',
  prompt: `a story in ${count} panels`,
  sequential_image_generation: 'auto',
  stream: true,
  ...extra,
});

interface Frame {
  event?: string;
  data: string;
}

/** The frames exactly as written: `event:` and one `data:` line each, a blank line between. */
function framesOf(text: string): Frame[] {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
      const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
      expect(data).toHaveLength(1);
      return { ...(event ? { event } : {}), data: data[0]! };
    });
}

type Event = Record<string, unknown> & { type?: string; image_index?: number };
const eventsOf = (frames: Frame[]) => frames.filter((f) => f.data !== '[DONE]').map((f) => JSON.parse(f.data) as Event);

describe('Ark stream: true', () => {
  test('a set of 4: four partial_succeeded in order, completed with usage, [DONE]; event names repeat the type', async () => {
    const res = await ark(set(4));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-request-id')).toMatch(/^0217/);
    const frames = framesOf(await res.text());
    expect(frames.at(-1)).toEqual({ data: '[DONE]' });
    const events = eventsOf(frames);
    expect(events.map((e) => e.type)).toEqual([
      ...Array<string>(4).fill('image_generation.partial_succeeded'),
      'image_generation.completed',
    ]);
    for (const [i, frame] of frames.slice(0, -1).entries()) expect(frame.event).toBe(events[i]!.type);
    expect(events.slice(0, 4).map((e) => e.image_index)).toEqual([0, 1, 2, 3]);
    for (const e of events.slice(0, 4)) {
      expect(e).toMatchObject({ model: 'seedream-4-0-250828', size: '2048x2048', created: expect.any(Number) as number });
      expect((await fetch(e.url as string)).status).toBe(200);
    }
    expect(events[4]).toMatchObject({
      model: 'seedream-4-0-250828',
      usage: { generated_images: 4, output_tokens: (4 * 2048 * 2048) / 256, total_tokens: (4 * 2048 * 2048) / 256 },
    });
  });

  test('b64_json: each event carries the image itself', async () => {
    const events = eventsOf(framesOf(await (await ark(set(2, { response_format: 'b64_json', size: '1280x720' }))).text()));
    const images = events.filter((e) => e.type === 'image_generation.partial_succeeded');
    expect(images).toHaveLength(2);
    for (const e of images) {
      expect(e.url).toBeUndefined();
      expect(imageDimensions(Buffer.from(e.b64_json as string, 'base64'))).toEqual({ width: 1280, height: 720 });
    }
  });

  test('a content refusal fails its image and the set goes on; usage counts what was delivered', async () => {
    await fault({ type: 'image-error', api: 'images', index: 1, code: 'OutputImageSensitiveContentDetected' });
    const events = eventsOf(framesOf(await (await ark(set(4))).text()));
    expect(events.map((e) => [e.type, e.image_index])).toEqual([
      ['image_generation.partial_succeeded', 0],
      ['image_generation.partial_failed', 1],
      ['image_generation.partial_succeeded', 2],
      ['image_generation.partial_succeeded', 3],
      ['image_generation.completed', undefined],
    ]);
    expect(events[1]!.error).toMatchObject({ code: 'OutputImageSensitiveContentDetected', message: expect.any(String) as string });
    expect(events[4]!.usage).toMatchObject({ generated_images: 3 });
  });

  test('an internal error fails its image and ends the set: no further images, completed still comes', async () => {
    await fault({ type: 'image-error', api: 'images', index: 1, code: 'InternalServiceError' });
    const frames = framesOf(await (await ark(set(4))).text());
    const events = eventsOf(frames);
    expect(events.map((e) => e.type)).toEqual([
      'image_generation.partial_succeeded',
      'image_generation.partial_failed',
      'image_generation.completed',
    ]);
    expect(events[2]!.usage).toMatchObject({ generated_images: 1 });
    expect(frames.at(-1)!.data).toBe('[DONE]');
  });

  test('an injected error event ends the stream where it stands: no completed, no [DONE]', async () => {
    await fault({ type: 'stream-error', api: 'images', after: 2 });
    const ended = once(sim.ctx.stats.events, 'stream-end');
    const frames = framesOf(await (await ark(set(4))).text());
    expect(await ended).toEqual(['failed']);
    expect(frames.map((f) => f.event)).toEqual(['image_generation.partial_succeeded', 'image_generation.partial_succeeded', 'error']);
    expect(JSON.parse(frames[2]!.data)).toEqual({ error: { code: 'InternalServiceError', message: expect.any(String) as string } });
  });

  test('a cut mid-stream breaks the body; a cut before the first image leaves no status line at all', async () => {
    await fault({ type: 'stream-drop', api: 'images', after: 1 });
    const res = await ark(set(3));
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    await fault({ type: 'stream-drop', api: 'images', after: 0 });
    await expect(ark(set(3))).rejects.toThrow();
    expect(sim.ctx.stats.streams.dropped).toBeGreaterThanOrEqual(2);
  });

  test('a held set: the first image is out and the call still open until released, then the set goes on', async () => {
    await fault({ type: 'stream-hold', api: 'images', after: 1 });
    const res = await ark(set(3));
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(framesOf(first).map((f) => f.event)).toEqual(['image_generation.partial_succeeded']);
    await vi.waitFor(() => expect(sim.ctx.faults.holding).toBe(1), { timeout: 10_000 });
    expect(sim.ctx.stats.inflight).toBe(1);
    expect(await (await control('POST', 'release', {})).json()).toEqual({ released: 1 });
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    const events = eventsOf(framesOf(rest));
    expect(events.map((e) => e.image_index ?? e.type)).toEqual([1, 2, 'image_generation.completed']);
    expect(events[2]!.usage).toMatchObject({ generated_images: 3 });
  });

  test('a client that leaves mid-set is seen: the set stops there', async () => {
    await control('PATCH', 'config', { SIM_IMAGE_SPACING_MS: 600_000 });
    try {
      const leave = new AbortController();
      const ended = once(sim.ctx.stats.events, 'stream-end');
      const res = await ark(set(4), leave.signal);
      const reader = res.body!.getReader();
      const first = await reader.read(); // the first image, sent at once; the second is ten minutes away
      expect(new TextDecoder().decode(first.value)).toContain('image_generation.partial_succeeded');
      leave.abort();
      expect(await ended).toEqual(['abandoned']);
    } finally {
      await control('PATCH', 'config', { SIM_IMAGE_SPACING_MS: 0 });
    }
  });

  test('a 500 before the stream and validation errors are plain JSON, as the vendor sends them', async () => {
    await fault({ type: 'error', api: 'images', status: 500 });
    const failed = await ark(set(2));
    expect(failed.status).toBe(500);
    expect(failed.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await failed.json()).toMatchObject({ error: { code: 'InternalServiceError', type: 'InternalServerError' } });
    const invalid = await ark(set(2, { size: '3K' }));
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ error: { code: 'InvalidParameter', param: 'size' } });
  });

  test('models that cannot stream: refused naming `stream`, or answered as JSON when set to ignore', async () => {
    const body = { model: 'seedream-3-0-t2i-250415', prompt: 'x', stream: true };
    const refused = await ark(body);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: 'InvalidParameter', param: 'stream' } });
    expect((await ark({ model: 'seededit-3-0-i2i-250628', prompt: 'x', image: 'data:image/png;base64,AAAA', stream: true })).status).toBe(
      400,
    );
    await control('PATCH', 'config', { SIM_STREAM_UNSUPPORTED: 'ignore' });
    try {
      const answered = await ark(body);
      expect(answered.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await answered.json()).toMatchObject({ data: [{ size: '1024x1024' }], usage: { generated_images: 1 } });
    } finally {
      await control('PATCH', 'config', { SIM_STREAM_UNSUPPORTED: 'refuse' });
    }
  });
});
