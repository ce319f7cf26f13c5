import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadSimulatorConfig } from './config.js';
import { faultSchema, type FaultInput } from './faults.js';
import { imageDimensions } from '@relay/core';
import { startSimulator, type RunningSimulator } from './server.js';
import { queueFault } from './sim.test-support.js';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator(loadSimulatorConfig({ SIM_PORT: '0', SIM_MAX_IPM: '0' }));
});
afterAll(async () => sim?.close());

const ark = (body: Record<string, unknown>, key = 'sim-key') =>
  fetch(`${sim.url}/api/v3/images/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
const fault = (f: FaultInput) => queueFault(sim.url, f);

type Json = Record<string, unknown>;
/** The events of an SSE body, one `data:` line each ([DONE] left out). */
const eventsOf = (text: string) =>
  text
    .split('\n\n')
    .filter(Boolean)
    .map((block) =>
      block
        .split('\n')
        .find((l) => l.startsWith('data: '))!
        .slice(6),
    )
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as Json);
const urlOf = async (res: Response) => ((await res.json()) as { data: Array<{ url: string }> }).data[0]!.url;

const set = (count: number, extra: Json = {}) => ({
  model: 'seedream-4-5-251128',
  prompt: `a story in ${count} panels`,
  sequential_image_generation: 'auto',
  stream: true,
  ...extra,
});

describe('the new faults parse strictly', () => {
  test.each<[string, unknown]>([
    ['answer-shape with an unknown field', { type: 'answer-shape', api: 'images', omit: ['size'], extra: 1 }],
    ['answer-shape omitting an unknown field', { type: 'answer-shape', api: 'images', omit: ['data'] }],
    ['answer-shape on speech', { type: 'answer-shape', api: 'speech' }],
    ['a link without serve', { type: 'link', api: 'images' }],
    ['a link with 0 hops', { type: 'link', api: 'images', serve: 'redirect', hops: 0 }],
    ['a label with a line break', { type: 'mislabel', api: 'images', contentType: 'text/plain\r\nx-evil: 1' }],
    ['previews on speech', { type: 'previews', api: 'speech' }],
  ])('%s is refused', (_label, input) => {
    expect(faultSchema.safeParse(input).success).toBe(false);
  });

  test('defaults: times 1, nothing omitted, an x separator, one hop', () => {
    expect(faultSchema.parse({ type: 'answer-shape', api: 'images' })).toEqual({
      type: 'answer-shape',
      api: 'images',
      times: 1,
      omit: [],
      sizeSeparator: 'x',
    });
    expect(faultSchema.parse({ type: 'link', api: 'images', serve: 'redirect' })).toMatchObject({ hops: 1, times: 1 });
  });
});

describe('Ark error bodies as recorded', () => {
  test('SetLimitExceeded: the account and the model named, TooManyRequests, no request id, no Retry-After', async () => {
    await fault({ type: 'error', api: 'images', status: 429, code: 'SetLimitExceeded' });
    const res = await ark({ model: 'seedream-4-5-251128', prompt: 'x' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBeNull();
    const { error } = (await res.json()) as { error: Json };
    expect(error).toEqual({
      code: 'SetLimitExceeded',
      message: expect.stringMatching(
        /^Your account \[\d{10}\] has reached the set usage limit for the \[seedream-4-5-251128\] model, and the model service has been paused\. To continue using this model, please visit the Model Activation page to adjust or close the "Safe Experience Mode"\.$/,
      ) as string,
      param: '',
      type: 'TooManyRequests',
    });
    // the same key, the same account
    await fault({ type: 'error', api: 'images', status: 429, code: 'SetLimitExceeded' });
    const again = (await (await ark({ model: 'seedream-4-5-251128', prompt: 'x' })).json()) as { error: Json };
    expect(again.error.message).toBe(error.message);
  });

  test('AccountQuotaExceeded: the reset hours ahead, named only in the message, on the +0800 clock', async () => {
    await fault({ type: 'error', api: 'images', status: 429, code: 'AccountQuotaExceeded' });
    const res = await ark({ model: 'seedream-4-0-250828', prompt: 'x' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBeNull();
    const requestId = res.headers.get('x-request-id')!;
    const { error } = (await res.json()) as { error: { message: string; param: string; type: string } };
    expect(error).toMatchObject({ code: 'AccountQuotaExceeded', param: '', type: 'TooManyRequests' });
    const m =
      /^You have exceeded the monthly usage quota\. It will reset at (\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d) \+0800 CST\. We recommend upgrading your plan for more quota, or waiting for the reset\. Request id: (\w+)$/.exec(
        error.message,
      );
    expect(m).not.toBeNull();
    expect(m![7]).toBe(requestId);
    const resetAt = Date.UTC(+m![1]!, +m![2]! - 1, +m![3]!, +m![4]! - 8, +m![5]!, +m![6]!);
    const hours = (resetAt - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(2.9);
    expect(hours).toBeLessThan(4.1);
  });

  test('a moderation refusal: code and message only, the message ending "Request id: …"', async () => {
    await fault({ type: 'error', api: 'images', status: 400, code: 'OutputImageSensitiveContentDetected' });
    const res = await ark({ model: 'seedream-4-0-250828', prompt: 'x' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        code: 'OutputImageSensitiveContentDetected',
        message: `The request failed because the output image may contain sensitive information. Request id: ${res.headers.get('x-request-id')}`,
      },
    });
  });
});

describe('answer-shape', () => {
  test('SeedEdit-like: no size; 3.0-like: usage with generated_images only; then the next answer is whole again', async () => {
    await fault({ type: 'answer-shape', api: 'images', omit: ['size'] });
    const noSize = (await (await ark({ model: 'seedream-4-0-250828', prompt: 'x' })).json()) as Json & { data: Json[] };
    expect(Object.keys(noSize.data[0]!)).toEqual(['url']);
    expect(noSize.usage).toMatchObject({ generated_images: 1, output_tokens: expect.any(Number) as number });

    await fault({ type: 'answer-shape', api: 'images', omit: ['size', 'output_tokens'] });
    const bare = (await (await ark({ model: 'seedream-3-0-t2i-250415', prompt: 'x' })).json()) as Json;
    expect(bare.usage).toEqual({ generated_images: 1 });

    const whole = (await (await ark({ model: 'seedream-4-0-250828', prompt: 'x' })).json()) as Json & { data: Json[] };
    expect(Object.keys(whole).sort()).toEqual(['created', 'data', 'model', 'usage']);
    expect(whole.data[0]!.size).toBe('2048x2048');
  });

  test('model, created, usage and total_tokens leave; the size is written with ×', async () => {
    await fault({ type: 'answer-shape', api: 'images', omit: ['model', 'created', 'total_tokens'], sizeSeparator: '×' });
    const trimmed = (await (await ark({ model: 'seedream-4-0-250828', prompt: 'x' })).json()) as Json & { data: Json[] };
    expect(Object.keys(trimmed).sort()).toEqual(['data', 'usage']);
    expect(trimmed.usage).toEqual({ generated_images: 1, output_tokens: 16384 });
    expect(trimmed.data[0]!.size).toBe('2048×2048');
    await fault({ type: 'answer-shape', api: 'images', omit: ['usage'] });
    expect(Object.keys((await (await ark({ model: 'seedream-4-0-250828', prompt: 'x' })).json()) as Json)).not.toContain('usage');
  });

  test('a validation error does not use the fault up: it waits for an answer', async () => {
    await fault({ type: 'answer-shape', api: 'images', omit: ['size'] });
    expect((await ark({ model: 'seedream-4-0-250828', prompt: 'x', size: '3K' })).status).toBe(400);
    const answer = (await (await ark({ model: 'seedream-4-0-250828', prompt: 'x' })).json()) as { data: Json[] };
    expect(answer.data[0]!.size).toBeUndefined();
  });

  test('every stream event is shaped the same', async () => {
    await fault({ type: 'answer-shape', api: 'images', omit: ['model', 'output_tokens'], sizeSeparator: '×' });
    const events = eventsOf(await (await ark(set(2))).text());
    expect(events.map((e) => e.type)).toEqual([
      'image_generation.partial_succeeded',
      'image_generation.partial_succeeded',
      'image_generation.completed',
    ]);
    for (const e of events) expect(e.model).toBeUndefined();
    expect(events[0]!.size).toMatch(/^\d+×\d+$/);
    expect(events[2]!.usage).toEqual({ generated_images: 2 });
  });
});

describe('previews', () => {
  test('a small partial_image before each partial_succeeded, in the shape the vendor client reads', async () => {
    await fault({ type: 'previews', api: 'images' });
    const events = eventsOf(await (await ark(set(2, { size: '2560x1440' }))).text());
    expect(events.map((e) => [e.type, e.image_index])).toEqual([
      ['image_generation.partial_image', 0],
      ['image_generation.partial_succeeded', 0],
      ['image_generation.partial_image', 1],
      ['image_generation.partial_succeeded', 1],
      ['image_generation.completed', undefined],
    ]);
    const preview = events[0]!;
    expect(Object.keys(preview).sort()).toEqual(['b64_json', 'created', 'image_index', 'model', 'partial_image_index', 'type']);
    expect(preview.partial_image_index).toBe(0);
    expect(imageDimensions(Buffer.from(preview.b64_json as string, 'base64'))).toEqual({ width: 64, height: 36 });
    expect(events[4]!.usage).toMatchObject({ generated_images: 2 });
  });

  test('a set answered at once leaves the fault queued for the next stream', async () => {
    await fault({ type: 'previews', api: 'images' });
    expect((await ark(set(1, { stream: false }))).status).toBe(200);
    const events = eventsOf(await (await ark(set(1))).text());
    expect(events[0]!.type).toBe('image_generation.partial_image');
  });
});

describe('mislabel', () => {
  test.each(['application/json', 'text/plain'])('the SSE body goes out as %s, as it is', async (contentType) => {
    await fault({ type: 'mislabel', api: 'images', contentType });
    const res = await ark(set(1));
    expect(res.headers.get('content-type')).toBe(contentType);
    const text = await res.text();
    expect(text).toMatch(/^event: image_generation\.partial_succeeded\ndata: \{/);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect((await ark(set(1))).headers.get('content-type')).toMatch(/^text\/event-stream/);
  });
});

describe('link', () => {
  test('html: a page with a script, labelled image/jpeg, or as asked', async () => {
    await fault({ type: 'link', api: 'images', serve: 'html', times: 2 });
    const page = await fetch(await urlOf(await ark({ model: 'seedream-4-0-250828', prompt: 'x' })));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('image/jpeg');
    expect(await page.text()).toMatch(/^<!DOCTYPE html>[\s\S]*<script>/);
    // both links of a set, with `times: 2` the next answer's too
    const events = eventsOf(await (await ark(set(2))).text()).filter((e) => e.url);
    for (const e of events) expect(await (await fetch(e.url as string)).text()).toContain('<script>');
    const image = await fetch(await urlOf(await ark({ model: 'seedream-4-0-250828', prompt: 'x' })));
    expect(imageDimensions(Buffer.from(await image.arrayBuffer()))).toEqual({ width: 2048, height: 2048 });

    await fault({ type: 'link', api: 'images', serve: 'html', contentType: 'image/png' });
    expect((await fetch(await urlOf(await ark({ model: 'seedream-4-0-250828', prompt: 'x' })))).headers.get('content-type')).toBe(
      'image/png',
    );
  });

  test('svg: an SVG that carries a script', async () => {
    await fault({ type: 'link', api: 'images', serve: 'svg' });
    const res = await fetch(await urlOf(await ark({ model: 'seedream-4-0-250828', prompt: 'x' })));
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(await res.text()).toMatch(/<svg [^>]*width="2048" height="2048"[\s\S]*<script/);
  });

  test('no-length: the real image, chunked, without Content-Length', async () => {
    await fault({ type: 'link', api: 'images', serve: 'no-length' });
    const res = await fetch(await urlOf(await ark({ model: 'seedream-4-0-250828', prompt: 'x', size: '1280x720' })));
    expect(res.headers.get('content-length')).toBeNull();
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(imageDimensions(Buffer.from(await res.arrayBuffer()))).toEqual({ width: 1280, height: 720 });
  });

  test('redirect: `hops` 302s on the simulator itself, each signed, then the image', async () => {
    await fault({ type: 'link', api: 'images', serve: 'redirect', hops: 3 });
    let url = await urlOf(await ark({ model: 'seedream-4-0-250828', prompt: 'x', size: '1280x720' }));
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await fetch(url, { redirect: 'manual' });
      statuses.push(res.status);
      if (res.status !== 302) {
        expect(res.headers.get('content-length')).toMatch(/^\d+$/);
        expect(imageDimensions(Buffer.from(await res.arrayBuffer()))).toEqual({ width: 1280, height: 720 });
        break;
      }
      url = res.headers.get('location')!;
      expect(url.startsWith(`${sim.url}/tos/ark-content-generation/`)).toBe(true);
      // a hop is signed: tampering with its spec is refused; the last hop is the plain link
      if (i < 2) expect((await fetch(url.replace(/\.redirect\.\d+\./, '.redirect.9.'), { redirect: 'manual' })).status).toBe(403);
      else expect(new URL(url).searchParams.get('X-Tos-Spec')).toMatch(/^1280x720\.jpeg\.1\.\d+$/);
    }
    expect(statuses).toEqual([302, 302, 302, 200]);
    // the default follows one hop
    await fault({ type: 'link', api: 'images', serve: 'redirect' });
    const one = await fetch(await urlOf(await ark({ model: 'seedream-4-0-250828', prompt: 'x' })), { redirect: 'manual' });
    expect(one.status).toBe(302);
    expect((await fetch(one.headers.get('location')!, { redirect: 'manual' })).status).toBe(200);
    // a label reaches the image at the end of the chain
    await fault({ type: 'link', api: 'images', serve: 'redirect', hops: 2, contentType: 'application/octet-stream' });
    const followed = await fetch(await urlOf(await ark({ model: 'seedream-4-0-250828', prompt: 'x' })));
    expect(followed.redirected).toBe(true);
    expect(followed.headers.get('content-type')).toBe('application/octet-stream');
    expect(imageDimensions(Buffer.from(await followed.arrayBuffer()))).toEqual({ width: 2048, height: 2048 });
  });

  test('a b64_json answer has no links: the fault waits for one that has', async () => {
    await fault({ type: 'link', api: 'images', serve: 'html' });
    expect((await ark({ model: 'seedream-4-0-250828', prompt: 'x', size: '1280x720', response_format: 'b64_json' })).status).toBe(200);
    expect(await (await fetch(await urlOf(await ark({ model: 'seedream-4-0-250828', prompt: 'x' })))).text()).toContain('<script>');
  });
});

describe('web search (5.0-lite)', () => {
  test('tools echoed and counted in usage.tool_usage, in the answer and the completed event; refused where the model has none', async () => {
    const tools = [{ type: 'web_search' }];
    const answer = (await (await ark({ model: 'seedream-5-0-260128', prompt: 'x', tools })).json()) as Json;
    expect(answer.tools).toEqual(tools);
    expect(answer.usage).toMatchObject({ generated_images: 1, tool_usage: { web_search: 1 } });
    const events = eventsOf(await (await ark(set(1, { model: 'seedream-5-0-260128', tools }))).text());
    expect(events.at(-1)).toMatchObject({ type: 'image_generation.completed', tools, usage: { tool_usage: { web_search: 1 } } });
    const refused = await ark({ model: 'seedream-4-5-251128', prompt: 'x', tools });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: 'InvalidParameter', param: 'tools' } });
    expect((await ark({ model: 'seedream-5-0-260128', prompt: 'x', tools: [{ type: 'code' }] })).status).toBe(400);
  });
});
