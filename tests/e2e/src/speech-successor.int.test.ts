import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { GEMINI_VOICES, loadCatalog } from '@relay/core';
import { startStack, type Stack } from './stack.js';

/**
 * The speech model's lifecycle: the public id moved onto a successor vendor model, and the GA
 * successor added as a model of its own, by the catalog alone (RELAY_CONFIG), no code.
 */
const PUBLIC_ID = 'vendor-2.5-flash-preview-tts';
const builtIn = loadCatalog({});
const current = builtIn.speechModels[PUBLIC_ID]!;
const catalog = {
  ...builtIn,
  speechModels: {
    // the drop-in successor: the same request shape, but it refuses a request that names no voice
    // moved by hand (the built-in retirement, which would move it again at its sunset, left out)
    [PUBLIC_ID]: {
      ...current,
      retirement: undefined,
      upstreamModel: 'gemini-3.1-flash-tts-preview',
      inputTokenLimit: 8_192,
      maxOutputTokens: 16_384,
    },
    'vendor-3.8-flash-lite-tts': {
      upstream: 'gemini',
      upstreamModel: 'gemini-3.8-flash-lite-tts',
      price: { inputPerMillion: 500_000, outputPerMillion: 6_000_000 },
      maxInputChars: 8_000,
      inputTokenLimit: 8_192,
      maxOutputTokens: 16_384,
      voices: GEMINI_VOICES,
      defaultVoice: 'Puck',
    },
  },
};

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack({ catalog });
  ({ key } = await stack.newKey());
}, 60_000);
afterAll(() => stack?.close());
beforeEach(async () => {
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
});

const TEXT = 'The keeper lit the lamp at dusk.';
const post = (path: string, body: unknown, headers: Record<string, string>) =>
  fetch(`${stack.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const gemini = (model: string, generationConfig: Record<string, unknown>) =>
  post(`/v1beta/models/${model}:generateContent`, { contents: [{ parts: [{ text: TEXT }] }], generationConfig }, { 'x-goog-api-key': key });
const openai = (body: Record<string, unknown>) => post('/v1/audio/speech', body, { authorization: `Bearer ${key}` });
/** The vendor model the upstream's last call named. */
const lastUpstreamModel = async () => (await stack.simCalls()).at(-1)?.model;

test('the public id on gemini-3.1-flash-tts-preview: Gemini door with a voice, and without one (the relay sends the default)', async () => {
  const voiced = await gemini(PUBLIC_ID, {
    responseModalities: ['AUDIO'],
    speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Puck' } } },
  });
  expect(voiced.status).toBe(200);
  expect(await lastUpstreamModel()).toBe('gemini-3.1-flash-tts-preview');
  // the SPEC's body names imageConfig, not speechConfig: this model would refuse it as it stands
  const direct = await fetch(`${stack.sim.url}/v1beta/models/gemini-3.1-flash-tts-preview:generateContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': 'sim-key' },
    body: JSON.stringify({ contents: [{ parts: [{ text: TEXT }] }], generationConfig: { responseModalities: ['AUDIO'] } }),
  });
  expect(direct.status).toBe(400);
  const unvoiced = await gemini(PUBLIC_ID, { responseModalities: ['AUDIO'], imageConfig: {} });
  expect(unvoiced.status).toBe(200);
  const body = (await unvoiced.json()) as { candidates: Array<{ content: { parts: Array<{ inlineData: { data: string } }> } }> };
  expect(Buffer.from(body.candidates[0]!.content.parts[0]!.inlineData.data, 'base64').length).toBeGreaterThan(48_000);
  expect((await stack.simCalls()).map((call) => [call.model, call.status])).toEqual([
    ['gemini-3.1-flash-tts-preview', 200],
    ['gemini-3.1-flash-tts-preview', 400],
    ['gemini-3.1-flash-tts-preview', 200],
  ]);
});

test('the public id on the successor through /v1/audio/speech: tts-1 and an OpenAI voice, encoded as asked', async () => {
  const res = await openai({ model: 'tts-1', voice: 'alloy', input: TEXT, response_format: 'wav' });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('audio/wav');
  expect(
    Buffer.from(await res.arrayBuffer())
      .subarray(0, 4)
      .toString(),
  ).toBe('RIFF');
  expect(await lastUpstreamModel()).toBe('gemini-3.1-flash-tts-preview');
});

test('the GA successor as a model of its own: both doors, its default voice, its limits from the catalog', async () => {
  const unvoiced = await gemini('vendor-3.8-flash-lite-tts', { responseModalities: ['AUDIO'], imageConfig: {} });
  expect(unvoiced.status).toBe(200);
  expect(((await unvoiced.json()) as { modelVersion: string }).modelVersion).toBe('vendor-3.8-flash-lite-tts');
  const spoken = await openai({ model: 'vendor-3.8-flash-lite-tts', voice: 'Kore', input: TEXT, response_format: 'mp3' });
  expect(spoken.status).toBe(200);
  expect(spoken.headers.get('content-type')).toBe('audio/mpeg');
  expect((await stack.simCalls()).map((call) => call.model)).toEqual(['gemini-3.8-flash-lite-tts', 'gemini-3.8-flash-lite-tts']);
  const tooLong = await openai({ model: 'vendor-3.8-flash-lite-tts', voice: 'Kore', input: 'a'.repeat(8_001) });
  expect(tooLong.status).toBe(400);
  expect(await tooLong.json()).toMatchObject({ error: { param: 'input', message: expect.stringContaining('8000') as string } });
  const listed = await fetch(`${stack.url}/v1beta/models/vendor-3.8-flash-lite-tts`, { headers: { 'x-goog-api-key': key } });
  expect(await listed.json()).toMatchObject({ inputTokenLimit: 8_192, outputTokenLimit: 16_384 });
});
