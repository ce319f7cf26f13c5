import { once } from 'node:events';
import { loadSimulatorConfig, startSimulator, type FaultInput, type RunningSimulator } from '@relay/simulator';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { UpstreamTarget } from '../post-json.js';
import { UpstreamError } from '../upstream-error.js';
import { createArkImages } from './images.js';
import type { ArkImageRequest } from './schema.js';
import { endsSet, type ArkStreamEvent } from './stream-events.js';
import { StreamInterrupted } from '../stream-interrupted.js';

let sim: RunningSimulator;
let target: UpstreamTarget;
const statuses: string[] = [];
beforeAll(async () => {
  sim = await startSimulator(loadSimulatorConfig({ SIM_PORT: '0', SIM_MAX_IPM: '0' }));
  target = { baseUrl: `${sim.url}/api/v3`, apiKey: 'sim-key', timeoutMs: 60_000 };
});
afterAll(async () => sim?.close());

const ark = () => createArkImages(target, (status) => void statuses.push(status));
const control = (method: string, path: string, body: unknown) =>
  fetch(`${sim.url}/_sim/${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const fault = (f: FaultInput | FaultInput[]) => control('POST', 'faults', f);
/** Runs `body` with the simulator's settings changed, then puts them back. */
async function withSimConfig(patch: Record<string, unknown>, body: () => Promise<void>) {
  const before = (await (await control('PATCH', 'config', {})).json()) as Record<string, unknown>;
  await control('PATCH', 'config', patch);
  try {
    await body();
  } finally {
    await control('PATCH', 'config', Object.fromEntries(Object.keys(patch).map((k) => [k, before[k]])));
  }
}

const set = (count: number, extra: Partial<ArkImageRequest> = {}): ArkImageRequest => ({
  model: 'seedream-4-0-250828',
  prompt: `a story in ${count} panels`,
  sequential_image_generation: 'auto',
  sequential_image_generation_options: { max_images: count },
  response_format: 'url',
  watermark: false,
  ...extra,
});

/** Every event until the stream ends, and what it ended with. */
async function drain(stream: AsyncIterable<ArkStreamEvent>) {
  const events: ArkStreamEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}
const shape = (events: ArkStreamEvent[]) =>
  events.map((e) => `${e.type.replace('image_generation.', '')}${'image_index' in e ? e.image_index : ''}`);

describe("Ark's image stream, against the simulator over HTTP", () => {
  test('a set of 4 arrives as 4 events, then completed with usage', async () => {
    const { events, error } = await drain(ark().generateStream(set(4)));
    expect(error).toBeUndefined();
    expect(shape(events)).toEqual(['partial_succeeded0', 'partial_succeeded1', 'partial_succeeded2', 'partial_succeeded3', 'completed']);
    for (const e of events.slice(0, 4)) expect(e).toMatchObject({ url: expect.stringContaining('_') as string, size: '2048x2048' });
    expect(events[4]).toMatchObject({ usage: { generated_images: 4, output_tokens: (4 * 2048 * 2048) / 256 } });
    expect(statuses.at(-1)).toBe('200');
  });

  test.each(['application/json', 'text/plain'])('an event stream labelled %s is read as the stream it is', async (contentType) => {
    await fault({ type: 'mislabel', api: 'images', contentType });
    const { events, error } = await drain(ark().generateStream(set(2)));
    expect(error).toBeUndefined();
    expect(shape(events)).toEqual(['partial_succeeded0', 'partial_succeeded1', 'completed']);
  });

  test('preview events (partial_image) and answers without size, usage, model or created still deliver every image', async () => {
    await fault([
      { type: 'previews', api: 'images' },
      { type: 'answer-shape', api: 'images', omit: ['size', 'usage', 'model', 'created'] },
    ]);
    const { events, error } = await drain(ark().generateStream(set(3)));
    expect(error).toBeUndefined();
    expect(shape(events)).toEqual(['partial_succeeded0', 'partial_succeeded1', 'partial_succeeded2', 'completed']);
    for (const e of events.slice(0, 3)) expect(e).toMatchObject({ size: '' });
  });

  test('sizes written W×H (U+00D7) read as WxH', async () => {
    await fault({ type: 'answer-shape', api: 'images', sizeSeparator: '×', times: 2 });
    const { events } = await drain(ark().generateStream(set(1)));
    expect(events[0]).toMatchObject({ size: '2048x2048' });
    expect(
      await ark()
        .generate({ ...set(1), prompt: 'one' })
        .then((a) => a.data[0]),
    ).toMatchObject({ size: '2048x2048' });
  });

  test('a refused image in the middle gives partial_failed and the set goes on', async () => {
    await fault({ type: 'image-error', api: 'images', index: 1, code: 'OutputImageSensitiveContentDetected' });
    const { events, error } = await drain(ark().generateStream(set(4, { response_format: 'b64_json', size: '1280x720' })));
    expect(error).toBeUndefined();
    expect(shape(events)).toEqual(['partial_succeeded0', 'partial_failed1', 'partial_succeeded2', 'partial_succeeded3', 'completed']);
    const failed = events[1]!;
    expect(failed.type === 'image_generation.partial_failed' && endsSet(failed)).toBe(false);
    expect(failed).toMatchObject({ error: { code: 'OutputImageSensitiveContentDetected' } });
    expect(events[0]).toMatchObject({ b64_json: expect.any(String) as string, size: '1280x720' });
    expect(events[4]).toMatchObject({ usage: { generated_images: 3 } });
  });

  test('an internal error on one image ends the set there: partial_failed, then completed with what was delivered', async () => {
    await fault({ type: 'image-error', api: 'images', index: 2, code: 'InternalServiceError' });
    const { events, error } = await drain(ark().generateStream(set(4)));
    expect(error).toBeUndefined();
    expect(shape(events)).toEqual(['partial_succeeded0', 'partial_succeeded1', 'partial_failed2', 'completed']);
    const failed = events[2]!;
    expect(failed.type === 'image_generation.partial_failed' && endsSet(failed)).toBe(true);
    expect(events[3]).toMatchObject({ usage: { generated_images: 2 } });
  });

  test('an error event mid-stream ends it with a typed error carrying what arrived', async () => {
    await fault({ type: 'stream-error', api: 'images', after: 2 });
    const { events, error } = await drain(ark().generateStream(set(4)));
    expect(shape(events)).toEqual(['partial_succeeded0', 'partial_succeeded1']);
    expect(error).toBeInstanceOf(StreamInterrupted);
    expect(error).toMatchObject({ kind: 'transient', details: { code: 'InternalServiceError', status: 200 } });
    expect((error as StreamInterrupted).arrived).toEqual({ delivered: 2, failed: 0, indexes: [0, 1] });
  });

  test('a cut connection mid-stream: the same typed error, as transient', async () => {
    await fault({ type: 'stream-drop', api: 'images', after: 1 });
    const { events, error } = await drain(ark().generateStream(set(3)));
    expect(shape(events)).toEqual(['partial_succeeded0']);
    expect(error).toBeInstanceOf(StreamInterrupted);
    expect(error).toMatchObject({ kind: 'transient', arrived: { delivered: 1, failed: 0 } });
  });

  test('stopping early aborts the request: the simulator sees the connection close', async () => {
    await withSimConfig({ SIM_IMAGE_SPACING_MS: 600_000 }, async () => {
      const ended = once(sim.ctx.stats.events, 'stream-end');
      for await (const event of ark().generateStream(set(4))) {
        expect(event.type).toBe('image_generation.partial_succeeded');
        break; // the next image is ten minutes away
      }
      expect(await ended).toEqual(['abandoned']);
    });
  });

  test("a cancelled call throws its signal's reason and hangs up", async () => {
    await withSimConfig({ SIM_IMAGE_SPACING_MS: 600_000 }, async () => {
      const cancel = new AbortController();
      const ended = once(sim.ctx.stats.events, 'stream-end');
      const events: ArkStreamEvent[] = [];
      const stream = ark().generateStream(set(4), { signal: cancel.signal });
      const failure = (async () => {
        for await (const event of stream) {
          events.push(event);
          cancel.abort(new Error('job cancelled'));
        }
      })();
      await expect(failure).rejects.toThrow('job cancelled');
      expect(events).toHaveLength(1);
      expect(await ended).toEqual(['abandoned']);
    });
  });

  test('the deadline runs between events, not over the set', async () => {
    await withSimConfig({ SIM_IMAGE_SPACING_MS: 600_000 }, async () => {
      const ended = once(sim.ctx.stats.events, 'stream-end');
      const patient = { ...target };
      const events: ArkStreamEvent[] = [];
      const failure = (async () => {
        for await (const event of createArkImages(patient).generateStream(set(4))) {
          events.push(event);
          patient.timeoutMs = 50; // read when the wait for the next event starts: that image is ten minutes away
        }
      })();
      const error = await failure.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StreamInterrupted);
      expect((error as Error).message).toContain('no event within 50 ms');
      expect((error as StreamInterrupted).arrived.delivered).toBe(1);
      expect(await ended).toEqual(['abandoned']);
    });
  });

  test('no first event within the deadline: unreachable, as generate says it', async () => {
    await withSimConfig({ SIM_LATENCY_MS: 600_000 }, async () => {
      const ended = once(sim.ctx.stats.events, 'stream-end');
      const { events, error } = await drain(createArkImages({ ...target, timeoutMs: 50 }).generateStream(set(2)));
      expect(events).toEqual([]);
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error).not.toBeInstanceOf(StreamInterrupted);
      expect(error).toMatchObject({ kind: 'transient', message: expect.stringContaining('no answer within 50 ms') as string });
      expect(await ended).toEqual(['abandoned']);
    });
  });

  test.each([
    [
      { type: 'error', api: 'images', status: 429, code: 'ModelAccountIpmRateLimitExceeded' },
      { kind: 'rate-limited', details: { status: 429, code: 'ModelAccountIpmRateLimitExceeded' } },
    ],
    [
      { type: 'error', api: 'images', status: 429, code: 'SetLimitExceeded' },
      { kind: 'quota-exhausted', details: { status: 429, code: 'SetLimitExceeded' } },
    ],
    [
      { type: 'error', api: 'images', status: 400, code: 'InputTextSensitiveContentDetected' },
      { kind: 'refused', details: { code: 'InputTextSensitiveContentDetected', moderation: true } },
    ],
    [
      { type: 'error', api: 'images', status: 500 },
      { kind: 'transient', details: { status: 500, code: 'InternalServiceError' } },
    ],
  ] as const)('an HTTP error before the stream is the UpstreamError generate throws (%#)', async (f, expected) => {
    await fault(f);
    const { events, error } = await drain(ark().generateStream(set(2)));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).not.toBeInstanceOf(StreamInterrupted);
    expect(error).toMatchObject(expected);
  });

  test('a model that cannot stream: the vendor refusal names `stream`; a JSON answer reads as the same events', async () => {
    const body: ArkImageRequest = { model: 'seedream-3-0-t2i-250415', prompt: 'x', response_format: 'url', watermark: false };
    const refused = await drain(ark().generateStream(body));
    expect(refused.error).toMatchObject({ kind: 'refused', details: { status: 400, param: 'stream' } });
    await withSimConfig({ SIM_STREAM_UNSUPPORTED: 'ignore' }, async () => {
      const { events, error } = await drain(ark().generateStream(body));
      expect(error).toBeUndefined();
      expect(shape(events)).toEqual(['partial_succeeded0', 'completed']);
      expect(events[1]).toMatchObject({ usage: { generated_images: 1 } });
    });
  });

  test('generate still answers whole, whatever `stream` the body carries', async () => {
    const answer = await ark().generate({ ...set(2), stream: true, optimize_prompt_options: { mode: 'fast' } });
    expect(answer.data).toHaveLength(2);
  });
});
