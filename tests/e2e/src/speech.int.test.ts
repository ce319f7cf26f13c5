import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { loadCatalog } from '@relay/core';
import { readWav } from '@relay/jobs';
import { answerFileReads } from './answer-file-reads.js';
import { startStack, type Stack } from './stack.js';

/** The built-in catalog held on the 2.5 preview whatever the date (its retirement: speech-retirement.int.test.ts). */
const builtIn = loadCatalog({});
const preview = builtIn.speechModels['vendor-2.5-flash-preview-tts']!;
const catalog = { ...builtIn, speechModels: { 'vendor-2.5-flash-preview-tts': { ...preview, retirement: undefined } } };

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack({ tuning: { api: { jobAttempts: 3 } }, catalog });
  ({ key } = await stack.newKey());
}, 60_000);
afterAll(async () => stack?.close());
beforeEach(async () => {
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
});

const MODEL = 'vendor-2.5-flash-preview-tts';
const TEXT = 'Say cheerfully: Have a wonderful day!';
const speechBody = (text = TEXT) => ({
  contents: [{ role: 'user', parts: [{ text }] }],
  generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
});

function speak(body: unknown, auth: Record<string, string> | 'query' = { 'x-goog-api-key': key }, action = 'generateContent', query = '') {
  const q = auth === 'query' ? `?key=${encodeURIComponent(key)}${query ? `&${query}` : ''}` : query ? `?${query}` : '';
  return fetch(`${stack.url}/v1beta/models/${MODEL}:${action}${q}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(auth === 'query' ? {} : auth) },
    body: JSON.stringify(body),
  });
}

interface GeminiAnswer {
  candidates: Array<{
    content: { role: string; parts: Array<{ inlineData: { mimeType: string; data: string } }> };
    finishReason: string;
    index: number;
  }>;
  usageMetadata: {
    promptTokenCount: number;
    candidatesTokenCount: number;
    totalTokenCount: number;
    promptTokensDetails: Array<{ modality: string; tokenCount: number }>;
    candidatesTokensDetails: Array<{ modality: string; tokenCount: number }>;
  };
  modelVersion: string;
  responseId: string;
}

const simStats = async () =>
  (await (await fetch(`${stack.sim.url}/_sim/stats`)).json()) as { requests: { speech: number }; statuses: Record<string, number> };

describe('each credential style', () => {
  test.each<[string, Record<string, string> | 'query']>([
    ['x-goog-api-key', { 'x-goog-api-key': 'KEY' }],
    ['?key=', 'query'],
    ['Authorization: Bearer', { authorization: 'Bearer KEY' }],
  ])('%s', async (_label, style) => {
    const auth = style === 'query' ? style : Object.fromEntries(Object.entries(style).map(([k, v]) => [k, v.replace('KEY', key)]));
    const res = await speak(speechBody(), auth);
    expect(res.status).toBe(200);
  });

  test.each<[string, Record<string, string>]>([
    ['none', {}],
    ['a wrong key', { 'x-goog-api-key': 'rk_wrong' }],
    ['a wrong bearer', { authorization: 'Bearer rk_wrong' }],
  ])('%s -> 401 UNAUTHENTICATED, JSON', async (_label, auth) => {
    const res = await speak(speechBody(), auth);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED', message: expect.any(String) } });
  });
});

test('happy path: Gemini shape, real PCM that grows with the text, a WAV link that plays', async () => {
  const short = (await (await speak(speechBody('Hello there.'))).json()) as GeminiAnswer;
  const res = await speak(speechBody(TEXT.repeat(4)));
  expect(res.status).toBe(200);
  const answer = (await res.json()) as GeminiAnswer;
  const candidate = answer.candidates[0]!;
  expect(candidate).toMatchObject({ finishReason: 'STOP', index: 0, content: { role: 'model' } });
  const inline = candidate.content.parts[0]!.inlineData;
  expect(inline.mimeType).toBe('audio/L16;codec=pcm;rate=24000');
  const pcm = Buffer.from(inline.data, 'base64');
  const shortPcm = Buffer.from(short.candidates[0]!.content.parts[0]!.inlineData.data, 'base64');
  expect(pcm.length).toBeGreaterThan(shortPcm.length * 3);
  expect(pcm.length % 2).toBe(0);
  expect(answer.modelVersion).toBe(MODEL);
  expect(answer.responseId).toMatch(/\S+/);
  const seconds = pcm.length / 2 / 24_000;
  expect(answer.usageMetadata.candidatesTokensDetails).toEqual([{ modality: 'AUDIO', tokenCount: Math.round(seconds * 25) }]);
  expect(answer.usageMetadata.promptTokensDetails[0]!.modality).toBe('TEXT');
  expect(answer.usageMetadata.totalTokenCount).toBe(answer.usageMetadata.promptTokenCount + answer.usageMetadata.candidatesTokenCount);

  const link = res.headers.get('x-relay-audio-url')!;
  expect(link).toMatch(new RegExp(`^${stack.url}/files/tts_[0-9a-f]{32}-0\\.wav$`));
  const file = await fetch(link);
  expect(file.headers.get('content-type')).toBe('audio/wav');
  const wav = readWav(Buffer.from(await file.arrayBuffer()))!;
  expect(wav).toMatchObject({ sampleRate: 24_000, channels: 1, bitsPerSample: 16 });
  expect(wav.pcm.equals(pcm)).toBe(true);
});

test("the answer's audio is the clip its worker just stored, published to the waiting api: the store is not read back", async () => {
  const before = await answerFileReads(stack.url);
  const res = await speak(speechBody('Handed over.'));
  expect(res.status).toBe(200);
  const answer = (await res.json()) as GeminiAnswer;
  const stored = readWav(Buffer.from(await (await fetch(res.headers.get('x-relay-audio-url')!)).arrayBuffer()))!;
  expect(Buffer.from(answer.candidates[0]!.content.parts[0]!.inlineData.data, 'base64').equals(stored.pcm)).toBe(true);
  const after = await answerFileReads(stack.url);
  expect({ fresh: after.fresh - before.fresh, store: after.store - before.store }).toEqual({ fresh: 1, store: 0 });
});

test('streamGenerateContent?alt=sse: the clip as the vendor streams it (one piece for the 2.5 preview), then its finish and usage', async () => {
  const res = await speak(speechBody(), 'query', 'streamGenerateContent', 'alt=sse');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events = (await res.text())
    .split(/\r\n\r\n/)
    .filter(Boolean)
    .map((event) => JSON.parse(event.replace(/^data: /, '')) as GeminiAnswer);
  expect(events).toHaveLength(2);
  const pcm = Buffer.from(events[0]!.candidates[0]!.content.parts[0]!.inlineData.data, 'base64');
  expect(pcm.length).toBeGreaterThan(1000);
  expect(events[1]!.candidates[0]).toMatchObject({ content: { parts: [] }, finishReason: 'STOP' });
  expect(events[1]!.usageMetadata.candidatesTokenCount).toBe(Math.round((pcm.length / 48_000) * 25));
  // the link names the stored WAV before it is made; it holds the same audio
  const wav = readWav(Buffer.from(await (await fetch(res.headers.get('x-relay-audio-url')!)).arrayBuffer()))!;
  expect(wav.pcm.equals(pcm)).toBe(true);
});

test('429 with RetryInfo (no Retry-After), then success: the client never sees the 429', async () => {
  await stack.fault({ type: 'error', api: 'speech', status: 429, retryDelay: '0.3s', times: 2 });
  const res = await speak(speechBody());
  expect(res.status).toBe(200);
  expect((await simStats()).statuses).toMatchObject({ 429: 2, 200: 1 });
  // by the upstream's own log: each call came no sooner than the delay its 429 asked for
  const calls = await stack.simCalls();
  expect(calls.map((c) => c.status)).toEqual([429, 429, 200]);
  for (let i = 1; i < calls.length; i++) expect(calls[i]!.startedAt - calls[i - 1]!.endedAt).toBeGreaterThanOrEqual(300);
});

test('500 until the retries run out: 502 in the Google dialect', async () => {
  await stack.fault({ type: 'error', api: 'speech', status: 500, times: 10 });
  const res = await speak(speechBody());
  expect(res.status).toBe(502);
  expect(res.headers.get('x-should-retry')).toBe('false');
  expect(await res.json()).toMatchObject({
    error: { code: 502, status: 'UNAVAILABLE', message: expect.stringMatching(/after 3 of 3 attempts/) },
  });
  expect((await simStats()).requests.speech).toBe(3);
  await fetch(`${stack.sim.url}/_sim/faults`, { method: 'DELETE' });
});

test('503 overloaded once, then success', async () => {
  await stack.fault({ type: 'error', api: 'speech', status: 503 });
  expect((await speak(speechBody())).status).toBe(200);
});

test('a 200 without audio (finishReason OTHER, billed by the vendor) is asked again: the caller gets audio and pays once', async () => {
  const { key: own, accountId } = await stack.newKey();
  await stack.fault({ type: 'no-content', api: 'speech' });
  const res = await speak(speechBody(), { 'x-goog-api-key': own });
  expect(res.status).toBe(200);
  expect(((await res.json()) as GeminiAnswer).candidates[0]!.finishReason).toBe('STOP');
  expect((await simStats()).requests.speech).toBe(2);
  const { ledger } = await stack.account(accountId);
  expect(ledger.filter((entry) => entry.type === 'settle' && entry.charged > 0)).toHaveLength(1);
});

test('no audio three times in a row is a clear 502, and nothing is charged', async () => {
  const { key: own, accountId } = await stack.newKey();
  const before = await stack.account(accountId);
  await stack.fault({ type: 'no-content', api: 'speech', times: 3 });
  const res = await speak(speechBody(), { 'x-goog-api-key': own });
  expect(res.status).toBe(502);
  const body = (await res.json()) as { error: { message: string } };
  expect(body.error.message).toMatch(/no speech 3 times .*without audio \(finishReason OTHER\)/);
  expect((await simStats()).requests.speech).toBe(3);
  const after = await stack.account(accountId);
  expect(after).toMatchObject({ balance: before.balance, reserved: 0, spent: 0 });
});

describe('Google-dialect errors', () => {
  test('an unknown model in the path is 404 NOT_FOUND', async () => {
    const res = await fetch(`${stack.url}/v1beta/models/vendor-9-tts:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
      body: JSON.stringify(speechBody()),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
    // a typo names the model meant
    const typo = await fetch(`${stack.url}/v1beta/models/vendor-2.5-flash-tts:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
      body: JSON.stringify(speechBody()),
    });
    expect(((await typo.json()) as { error: { message: string } }).error.message).toBe(
      'models/vendor-2.5-flash-tts is not found for API version v1beta, or is not supported for generateContent; did you mean models/vendor-2.5-flash-preview-tts?',
    );
  });

  test('a broken rule is 400 INVALID_ARGUMENT with a field violation', async () => {
    const body = speechBody();
    body.generationConfig.speechConfig.voiceConfig.prebuiltVoiceConfig.voiceName = 'Nobody';
    const res = await speak(body);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [{ field: 'generation_config.speech_config.voice_config.prebuilt_voice_config.voice_name' }],
          },
        ],
      },
    });
  });

  test('broken JSON and wrong content types answer in the Google dialect', async () => {
    const res = await fetch(`${stack.url}/v1beta/models/${MODEL}:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-goog-api-key': key },
      body: 'hello',
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ error: { code: 415, status: 'INVALID_ARGUMENT' } });
  });
});

describe('what Gemini TTS is recorded doing', () => {
  test('"Model tried to generate text" for a bare short text: asked again with a reading direction, audio for the caller, one charge', async () => {
    const { key: own, accountId } = await stack.newKey();
    // the model refuses any text without a leading direction, as 2.5 does for "Hello world"
    await stack.fault({ type: 'refuse-text', api: 'speech', when: 'bare', times: 5 });
    const res = await speak(speechBody('Hello world'), { 'x-goog-api-key': own });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as GeminiAnswer;
    expect(answer.candidates[0]!.content.parts[0]!.inlineData.data.length).toBeGreaterThan(0);
    expect((await simStats()).statuses).toMatchObject({ 400: 1, 200: 1 });
    const { ledger } = await stack.account(accountId);
    expect(ledger.filter((entry) => entry.type === 'settle' && entry.charged > 0)).toHaveLength(1);
    await fetch(`${stack.sim.url}/_sim/faults`, { method: 'DELETE' });
  });

  test('empty audio (a header and no samples) is never a success: asked again, and the caller gets real audio', async () => {
    await stack.fault({ type: 'empty-audio', api: 'speech' });
    const res = await speak(speechBody());
    expect(res.status).toBe(200);
    const answer = (await res.json()) as GeminiAnswer;
    expect(Buffer.from(answer.candidates[0]!.content.parts[0]!.inlineData.data, 'base64').length).toBeGreaterThan(480);
    expect((await simStats()).requests.speech).toBe(2);
  });

  test("a per-day quota ends the request at once with the vendor's reason, whatever its short RetryInfo says", async () => {
    await stack.fault({ type: 'quota', api: 'speech', period: 'day', retryDelay: '26s' });
    const res = await speak(speechBody());
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { status: string; message: string; details?: Array<Record<string, unknown>> } };
    expect(body.error.status).toBe('UNAVAILABLE');
    expect(body.error.message).toMatch(/quota or spend cap .* \(RESOURCE_EXHAUSTED\); the vendor resets it at/);
    // the reset is the next midnight in the vendor's zone: hours, not the 26 s the vendor suggested
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(60);
    expect((await simStats()).requests.speech).toBe(1);
    await stack.resetBreakers();
  });
});
