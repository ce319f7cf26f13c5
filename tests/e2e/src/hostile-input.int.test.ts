import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { redisConnectionOptions } from '@relay/core';
import { bullPrefix } from '@relay/jobs';
import { postJson, startStack, type Stack } from './stack.js';

/**
 * Inputs an attacker sends on purpose: each used to freeze the api, fill Redis for free,
 * answer 500 or touch the balance before the request was known to be good.
 */
let stack: Stack;
let funded: { key: string; accountId: string };
let broke: { key: string; accountId: string };
beforeAll(async () => {
  stack = await startStack();
  [funded, broke] = await Promise.all([stack.newKey(), stack.newKey({ balance: 0 })]);
}, 60_000);
afterAll(async () => stack?.close());

const images = (body: unknown, key = funded.key) => postJson(`${stack.url}/v1/images/generations`, body, key);
const speech = (model: string, body: unknown, key = funded.key) =>
  postJson(`${stack.url}/v1beta/models/${model}:generateContent`, body, undefined, { 'x-goog-api-key': key });
const SPEECH = {
  contents: [{ parts: [{ text: 'hello there' }] }],
  generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
};
const TTS = 'vendor-2.5-flash-preview-tts';

test('a million-entry image array is refused at once, on a key without money, and the api keeps answering', async () => {
  const hostile = images({ model: 'vendor-gen-4-0-250828', prompt: 'x', image: Array(1_000_000).fill('x') }, broke.key);
  const health = await fetch(`${stack.url}/healthz`);
  expect(health.status).toBe(200);
  const res = await hostile;
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringMatching(/values/) } });
});

test('count rules come before any entry is read: 20 junk entries name the count, not entry 0', async () => {
  const res = await images({ model: 'vendor-gen-4-0-250828', prompt: 'x', image: Array(20).fill('x') });
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: { param: 'image', message: expect.stringMatching(/at most 14/) } });
});

describe('JavaScript property names are ordinary unknown names', () => {
  const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

  test.each(names)('image model %s: 400 naming model', async (name) => {
    const res = await images({ model: name, prompt: 'x' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { param: 'model', message: expect.stringMatching(/unknown model/) } });
  });

  test.each(names)('speech path model %s: 404 in Google shape', async (name) => {
    const res = await speech(name, SPEECH);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
  });

  test.each(names)('speech body model %s: 400 in Google shape', async (name) => {
    const res = await speech(TTS, { ...SPEECH, model: name });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  });

  test.each(['toString_1', '__proto__', 'constructor', `img_${'0'.repeat(32)}`])('GET /v1/jobs/%s: 404', async (id) => {
    const res = await fetch(`${stack.url}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${funded.key}` } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { type: 'not_found_error' } });
  });
});

test('free-form imageConfig nested 10,000 deep: 400, not a 500', async () => {
  const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
  const body = `{"contents":[{"parts":[{"text":"hi"}]}],"generationConfig":{"responseModalities":["AUDIO"],"imageConfig":${deep}}}`;
  const res = await speech(TTS, body);
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT', message: expect.stringMatching(/nests deeper/) } });
});

describe('nothing is reserved before the request is known to be good', () => {
  const badInline = { model: 'vendor-gen-4-0-250828', prompt: 'x', image: 'data:image/png;base64,aGVsbG8gd29ybGQ=' };

  test('an empty account gets the 400, not a 402', async () => {
    const res = await images(badInline, broke.key);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { param: 'image' } });
  });

  test('a funded account sees no reserve/release pair in its ledger', async () => {
    const account = await stack.newKey({ balance: 1_000_000 });
    expect((await images(badInline, account.key)).status).toBe(400);
    expect((await images({ ...badInline, image: 'data:image/png;base64,abc$' }, account.key)).status).toBe(400);
    const { ledger, balance, reserved } = await stack.account(account.accountId);
    expect(ledger.map((e) => e.type)).toEqual(['credit']);
    expect({ balance, reserved }).toEqual({ balance: 1_000_000, reserved: 0 });
  });
});

describe('Redis holds no more than a request is entitled to', () => {
  test('an 8 MB image URL is refused and leaves nothing behind', async () => {
    const before = await stack.redisFootprint();
    for (let i = 0; i < 3; i++) {
      const res = await images({
        model: 'vendor-gen-4-0-250828',
        prompt: 'x',
        image: `https://example.com/${'a'.repeat(8 * 1024 * 1024)}`,
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { param: 'image', message: expect.stringMatching(/at most 4096 characters/) } });
    }
    const after = await stack.redisFootprint();
    expect(after.keys).toBe(before.keys);
    expect(after.bytes - before.bytes).toBeLessThan(512);
  });

  test('half a megabyte of imageConfig is accepted but never queued', async () => {
    const res = await speech(TTS, {
      ...SPEECH,
      generationConfig: { ...SPEECH.generationConfig, imageConfig: { junk: 'x'.repeat(500 * 1024) } },
    });
    expect(res.status).toBe(200);
    const queue = new Queue('speech', {
      connection: redisConnectionOptions(stack.redis.url, 'patient'),
      prefix: bullPrefix(stack.env.REDIS_PREFIX!),
    });
    try {
      const [job] = await queue.getJobs(['completed'], 0, 0);
      expect(job!.data.request.generationConfig).not.toHaveProperty('imageConfig');
      expect(JSON.stringify(job!.data).length).toBeLessThan(2_000);
    } finally {
      await queue.close();
    }
  });
});

describe('admin ids are validated before they reach a Redis key', () => {
  test.each([
    ['GET', (id: string) => `/accounts/${id}:keys`],
    ['GET', (id: string) => `/accounts/${id}:keys/keys`],
    ['DELETE', () => '/keys/key_0123456789abcdef:x'],
  ])('%s %s: 404', async (method, path) => {
    const res = await stack.admin(method, path(funded.accountId));
    expect(res.status).toBe(404);
  });
});

describe('the most one request can leave in Redis (docs/limits.md states these bounds)', () => {
  /** Bytes a request adds under the stack's prefix, measured with MEMORY USAGE. */
  async function footprintOf(send: () => Promise<Response>) {
    const before = await stack.redisFootprint();
    const res = await send();
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const after = await stack.redisFootprint();
    return after.bytes - before.bytes;
  }

  test('a maximal image request: 14 URLs of 4,096 characters and a 10,000-character prompt', async () => {
    const made = await fetch(`${stack.sim.url}/api/v3/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sim-key' },
      body: JSON.stringify({ model: 'seedream-4-0-250828', prompt: 'input', size: '1280x720', response_format: 'url' }),
    });
    const link = ((await made.json()) as { data: Array<{ url: string }> }).data[0]!.url;
    const padded = `${link}&pad=${'a'.repeat(4096 - link.length - 5)}`;
    const body = { model: 'vendor-gen-4-0-250828', prompt: '画'.repeat(10_000), image: Array(14).fill(padded) };
    const bytes = await footprintOf(() => images(body));
    console.log(`a maximal image request left ${bytes} bytes in Redis`);
    expect(bytes).toBeLessThan(128 * 1024);
  }, 60_000);

  test('a maximal speech request: 32,000 characters of text', async () => {
    const body = { ...SPEECH, contents: [{ parts: [{ text: '話'.repeat(32_000) }] }] };
    const bytes = await footprintOf(() => speech(TTS, body));
    console.log(`a maximal speech request left ${bytes} bytes in Redis`);
    expect(bytes).toBeLessThan(128 * 1024);
  }, 60_000);
});
