import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { LedgerEntry } from '@relay/billing';
import { startRedis, waitFor } from '@relay/testkit';
import { decodedSeconds } from './decoded-seconds.js';
import { launch } from './launch.js';
import { startReplay, type Replay } from './vendor-replay.js';

/**
 * `npm start` with its vendor URLs pointed at a server that answers with the vendors' own recorded
 * answers (vendor-replay.ts), as issue 30 asks: every paid answer delivered once and charged once,
 * every quota answer ending the request within seconds with the vendor's reason, no refusal or
 * empty audio charged.
 */
const redis = await startRedis();
let replay: Replay;
let run: Awaited<ReturnType<typeof launch>>;
let relay: string;
let adminToken: string;

beforeAll(async () => {
  replay = await startReplay();
  run = await launch(redis.url, {
    ARK_BASE_URL: `${replay.url}/api/v3`,
    ARK_API_KEY: 'replay-key',
    GEMINI_BASE_URL: replay.url,
    GEMINI_API_KEY: 'replay-key',
    URL_ALLOWLIST: replay.host,
    RELAY_CONFIG: JSON.stringify({ tuning: { api: { jobBackoffMs: 50 } } }),
  });
  await waitFor(() => run.output().includes('admin token:') || run.child.exitCode !== null, 90_000, 'the banner');
  expect(run.child.exitCode, run.output()).toBeNull();
  relay = `http://127.0.0.1:${run.ports.PORT}`;
  adminToken = readFileSync(join(run.dataDir, 'admin-token'), 'utf8').trim();
}, 120_000);
afterAll(async () => {
  await run?.remove();
  await replay?.close();
  await redis.close();
});
beforeEach(async () => {
  replay.calls.length = 0;
  // a quota answer exhausts the channel: each test starts with the vendor's channels in service
  for (const channel of await channels()) await admin('PATCH', `/channels/${channel.id}`, { disabled: false });
});

const admin = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${relay}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json() as Promise<Record<string, unknown>>;
};
const channels = async () =>
  (await admin('GET', '/channels')).channels as Array<{ id: string; upstream: string; state: string; exhaustedReason: string | null }>;

let accountsMade = 0;
async function newKey() {
  // account names are unique
  const account = (await admin('POST', '/accounts', { name: `replay ${++accountsMade}` })) as { id: string };
  await admin('POST', `/accounts/${account.id}/credits`, { amount: 1_000_000_000, note: 'replay funds' });
  const { key } = (await admin('POST', `/accounts/${account.id}/keys`, { name: 'replay' })) as { key: string };
  return { key, accountId: account.id };
}
const charges = async (accountId: string) => {
  const { entries } = (await admin('GET', `/accounts/${accountId}/usage?limit=100`)) as { entries: LedgerEntry[] };
  return entries.filter((e) => e.type === 'settle' && e.charged > 0);
};
const post = (path: string, key: string, body: unknown) =>
  fetch(`${relay}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe("Ark's recorded paid answers: delivered once, charged once, never bought again", () => {
  test.each([
    ['seedream/byteplus-doc-4-5-t2i-response.json', 'vendor-gen-4-5-251128', {}, 1],
    ['seedream/byteplus-doc-4-5-sequential-3-images-response.json', 'vendor-gen-4-5-251128', { sequential_image_generation: 'auto' }, 3],
    ['seedream/byteplus-real-4-0-response.image-gen-mcp.json', 'vendor-gen-4-0-250828', {}, 1],
    ['seedream/volcengine-seedream-3-0-t2i-response.302ai-copy.json', 'vendor-gen-3-0-t2i-250415', {}, 1],
  ])('%s', async (path, model, extra, images) => {
    const { key, accountId } = await newKey();
    replay.ark(path);
    const res = await post('/v1/images/generations', key, { model, prompt: 'a lighthouse', ...extra });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { data: Array<{ url: string; size: string }>; usage: { generated_images: number } };
    expect(body.data).toHaveLength(images);
    expect(body.usage.generated_images).toBe(images);
    for (const image of body.data) expect((await fetch(image.url)).status).toBe(200);
    expect(replay.calls.filter((c) => c.api === 'images')).toHaveLength(1);
    expect(await charges(accountId)).toHaveLength(1);
    expect((await charges(accountId))[0]!.units).toBe(`${images} images`);
  });

  test('the documented event stream, under its own header and under application/json', async () => {
    for (const contentType of ['text/event-stream', 'application/json']) {
      const { key, accountId } = await newKey();
      replay.arkStream('seedream/byteplus-doc-4-5-stream.sse', contentType);
      const res = await post('/v1/images/generations', key, {
        model: 'vendor-gen-4-5-251128',
        prompt: 'a coast in 3 images',
        sequential_image_generation: 'auto',
        stream: true,
      });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      expect(text.match(/^event: image_generation\.partial_image$/gm)).toHaveLength(3);
      expect(await charges(accountId)).toHaveLength(1);
    }
    expect(replay.calls.filter((c) => c.api === 'images')).toHaveLength(2);
  });
});

describe("Ark's recorded errors", () => {
  test.each([
    ['seedream/ark-429-SetLimitExceeded.json', 'SetLimitExceeded'],
    ['seedream/ark-429-AccountQuotaExceeded.json', 'AccountQuotaExceeded'],
  ])("%s: the request ends at once with the vendor's code, nothing charged, the channel says why", async (path, code) => {
    const { key, accountId } = await newKey();
    replay.ark(path, 429);
    const res = await post('/v1/images/generations', key, { model: 'vendor-gen-4-5-251128', prompt: 'a lighthouse' });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
    expect(replay.calls).toHaveLength(1);
    expect(await charges(accountId)).toHaveLength(0);
    const ark = (await channels()).find((c) => c.upstream === 'ark')!;
    expect(ark).toMatchObject({ state: 'exhausted', exhaustedReason: expect.stringContaining(code) });
  });

  test('a moderation refusal is a 400 with its code, not charged', async () => {
    const { key, accountId } = await newKey();
    replay.ark('seedream/ark-400-OutputImageSensitiveContentDetected.json', 400);
    const res = await post('/v1/images/generations', key, { model: 'vendor-gen-4-5-251128', prompt: 'a lighthouse' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('OutputImageSensitiveContentDetected');
    expect(await charges(accountId)).toHaveLength(0);
  });
});

describe("Gemini TTS's recorded answers", () => {
  const speak = (key: string, text = 'Hello world') =>
    fetch(`${relay}/v1beta/models/vendor-2.5-flash-preview-tts:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        contents: [{ parts: [{ text }] }],
        generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
      }),
    });

  test('"Model tried to generate text", then the answer: audio for the caller, charged once, the second call directed', async () => {
    const { key, accountId } = await newKey();
    replay.gemini('gemini/tts-400-model-tried-to-generate-text.json', 400);
    replay.gemini('gemini/tts-success-2.5-flash.302ai-gateway.json');
    const res = await speak(key);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(replay.calls).toHaveLength(2);
    const texts = replay.calls.map((c) => (c.body as { contents: Array<{ parts: Array<{ text: string }> }> }).contents[0]!.parts[0]!.text);
    // the 2.5 and 3.1 models take a leading direction; 3.8 (the preview's successor past its sunset) reads text verbatim
    const vendorModel = /\/models\/([^:]+):/.exec(replay.calls[1]!.path)![1]!;
    expect(texts).toEqual(['Hello world', vendorModel.startsWith('gemini-3.8-') ? 'Hello world' : 'Read aloud:\nHello world']);
    expect(await charges(accountId)).toHaveLength(1);
  });

  test('finishReason OTHER with no audio, three times: a 502, nothing charged', async () => {
    const { key, accountId } = await newKey();
    for (let i = 0; i < 3; i++) replay.gemini('gemini/tts-200-no-audio-finish-other.cookbook-1231.json');
    const res = await speak(key);
    expect(res.status).toBe(502);
    expect(replay.calls).toHaveLength(3);
    expect(await charges(accountId)).toHaveLength(0);
  });
});

test.each(['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'])("a short text's half second of speech is whole as %s", async (format) => {
  const { key } = await newKey();
  replay.gemini('gemini/tts-success-2.5-flash.302ai-gateway.json', 200, 0.5);
  const res = await post('/v1/audio/speech', key, { model: 'tts-1', voice: 'alloy', input: 'Sure!', response_format: format });
  expect(res.status).toBe(200);
  const seconds = decodedSeconds(Buffer.from(await res.arrayBuffer()), format === 'pcm');
  // within one frame of the codec (aac's 1024 priming samples included, which ADTS cannot mark)
  expect(seconds).toBeGreaterThanOrEqual(0.5 - 0.001);
  expect(seconds).toBeLessThanOrEqual(0.5 + 2048 / 24_000);
});
