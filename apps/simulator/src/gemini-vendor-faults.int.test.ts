import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadSimulatorConfig } from './config.js';
import type { FaultInput } from './faults.js';
import { hasDirection, spokenText } from './gemini/audio.js';
import { startSimulator, type RunningSimulator } from './server.js';
import { queueFault } from './sim.test-support.js';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator(loadSimulatorConfig({ SIM_PORT: '0' }));
});
afterAll(async () => sim?.close());

const body = (text: string) => ({
  contents: [{ parts: [{ text }] }],
  generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
});
const speak = (text: string, path = 'gemini-2.5-flash-preview-tts:generateContent') =>
  fetch(`${sim.url}/v1beta/models/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': 'sim-key' },
    body: JSON.stringify(body(text)),
  });
const fault = (f: FaultInput) => queueFault(sim.url, f);

interface Answer {
  candidates: Array<{ content: { parts?: Array<{ inlineData: { mimeType: string; data: string } }> }; finishReason: string }>;
  usageMetadata: { promptTokenCount: number; candidatesTokenCount: number; totalTokenCount?: number };
}
const inlineOf = (answer: Answer) => answer.candidates[0]!.content.parts![0]!.inlineData;
const secondsOf = (answer: Answer) => Buffer.from(inlineOf(answer).data, 'base64').length / 48_000;

const TRIED =
  'Model tried to generate text, but it should only be used for TTS. Make sure your instructions are clear to only generate audio from a given text transcript.';

describe('reading directions', () => {
  test.each<[string, boolean, string]>([
    ['Say cheerfully: Have a wonderful day!', true, 'Have a wonderful day!'],
    ['Read aloud in a warm tone:\nThe keeper lit the lamp.', true, 'The keeper lit the lamp.'],
    ['  speak slowly:  hello', true, 'hello'],
    ['Speak warmly:\nHello.', true, 'Hello.'],
    ['Hello world', false, 'Hello world'],
    ['Sayonara: goodbye', false, 'Sayonara: goodbye'],
    ['Say: ', false, 'Say: '],
    ['Note: say this', false, 'Note: say this'],
  ])('%j: a direction %s, spoken %j', (text, direction, spoken) => {
    expect(hasDirection(text)).toBe(direction);
    expect(spokenText(text)).toBe(spoken);
  });

  test('only the words after the direction are spoken: the clip is as long as without it; the prompt counts it all', async () => {
    const words = 'a'.repeat(150);
    const plain = (await (await speak(words)).json()) as Answer;
    const directed = (await (await speak(`Say cheerfully: ${words}`)).json()) as Answer;
    expect(secondsOf(plain)).toBeCloseTo(10, 1);
    expect(secondsOf(directed)).toBeCloseTo(10, 1);
    expect(directed.usageMetadata.candidatesTokenCount).toBe(plain.usageMetadata.candidatesTokenCount);
    expect(directed.usageMetadata.promptTokenCount).toBeGreaterThan(plain.usageMetadata.promptTokenCount);
  });
});

describe('refuse-text', () => {
  test('always: 400 INVALID_ARGUMENT with the recorded body, whatever the text', async () => {
    await fault({ type: 'refuse-text', api: 'speech' });
    const res = await speak('Say cheerfully: Hello world');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: 400, message: TRIED, status: 'INVALID_ARGUMENT' } });
    expect((await speak('Hello world')).status).toBe(200);
  });

  test('bare: refuses a text without a direction only; a directed call passes and counts', async () => {
    await fault({ type: 'refuse-text', api: 'speech', when: 'bare', times: 3 });
    expect((await speak('Hello world')).status).toBe(400);
    expect((await speak('Say: Hello world')).status).toBe(200);
    expect((await speak('Hello world')).status).toBe(400);
    expect((await speak('Hello world')).status).toBe(200); // three calls seen: spent
  });
});

describe('empty-audio and no-content', () => {
  test('empty-audio: 200 STOP, inlineData with a mimeType and no data, the audio billed', async () => {
    await fault({ type: 'empty-audio', api: 'speech' });
    const res = await speak('Hello there, this was billed.');
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Answer;
    expect(answer.candidates[0]!.finishReason).toBe('STOP');
    expect(inlineOf(answer)).toEqual({ mimeType: 'audio/L16;codec=pcm;rate=24000', data: '' });
    expect(answer.usageMetadata.candidatesTokenCount).toBeGreaterThan(0);
  });

  test('no-content: content {}, finishReason OTHER, prompt and audio tokens billed, as recorded', async () => {
    await fault({ type: 'no-content', api: 'speech' });
    const answer = (await (await speak('Hello there.')).json()) as Answer & Record<string, unknown>;
    expect(answer.candidates).toEqual([{ content: {}, finishReason: 'OTHER' }]);
    expect(Object.keys(answer.usageMetadata)).toEqual(['promptTokenCount', 'candidatesTokenCount']);
    expect(answer.usageMetadata.promptTokenCount).toBeGreaterThan(0);
    expect(answer.usageMetadata.candidatesTokenCount).toBeGreaterThan(0);
  });
});

describe('quota', () => {
  test.each<['minute' | 'day', string]>([
    ['minute', 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier'],
    ['day', 'GenerateRequestsPerDayPerProjectPerModel-FreeTier'],
  ])('%s: 429 RESOURCE_EXHAUSTED, QuotaFailure %s, Help, a short RetryInfo, no Retry-After', async (period, quotaId) => {
    await fault({ type: 'quota', api: 'speech', period });
    const res = await speak('Hello');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBeNull();
    const { error } = (await res.json()) as { error: { status: string; details: Array<Record<string, unknown>> } };
    expect(error.status).toBe('RESOURCE_EXHAUSTED');
    expect(error.details.map((d) => d['@type'])).toEqual([
      'type.googleapis.com/google.rpc.QuotaFailure',
      'type.googleapis.com/google.rpc.Help',
      'type.googleapis.com/google.rpc.RetryInfo',
    ]);
    expect(error.details[0]).toMatchObject({
      violations: [{ quotaId, quotaDimensions: { location: 'global', model: 'gemini-2.5-flash-preview-tts' } }],
    });
    const delay = String(error.details[2]!.retryDelay);
    expect(delay).toMatch(/^\d+s$/);
    expect(Number.parseInt(delay)).toBeLessThanOrEqual(60);
  });

  test('a retryDelay of its own', async () => {
    await fault({ type: 'quota', api: 'speech', period: 'day', retryDelay: '26s' });
    const { error } = (await (await speak('Hello')).json()) as { error: { details: Array<Record<string, unknown>> } };
    expect(error.details[2]).toEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '26s' });
  });
});

describe('mimeType', () => {
  test('3.1 Flash TTS labels its PCM audio/l16; rate=24000; channels=1, the 2.5 previews audio/L16;codec=pcm;rate=24000', async () => {
    expect(inlineOf((await (await speak('Hello', 'gemini-3.1-flash-tts-preview:generateContent')).json()) as Answer).mimeType).toBe(
      'audio/l16; rate=24000; channels=1',
    );
    expect(inlineOf((await (await speak('Hello')).json()) as Answer).mimeType).toBe('audio/L16;codec=pcm;rate=24000');
  });

  test('the mime fault labels the next audio answer as asked, then the model label returns', async () => {
    await fault({ type: 'mime', api: 'speech', mimeType: 'audio/l16; rate=24000; channels=1' });
    expect((await speak('x', 'gemini-9:generateContent')).status).toBe(404); // no answer: the fault waits
    expect(inlineOf((await (await speak('Hello')).json()) as Answer).mimeType).toBe('audio/l16; rate=24000; channels=1');
    expect(inlineOf((await (await speak('Hello')).json()) as Answer).mimeType).toBe('audio/L16;codec=pcm;rate=24000');
  });
});

describe('mislabel', () => {
  test('alt=sse: the event goes out under the label as given; a JSON answer leaves the fault queued', async () => {
    await fault({ type: 'mislabel', api: 'speech', contentType: 'application/json' });
    expect((await speak('Hello')).headers.get('content-type')).toMatch(/^application\/json/);
    const res = await speak('Hello', 'gemini-2.5-flash-preview-tts:streamGenerateContent?alt=sse');
    expect(res.headers.get('content-type')).toBe('application/json');
    const text = await res.text();
    expect(text).toMatch(/^data: \{.*\}\r\n\r\n$/s);
    const again = await speak('Hello', 'gemini-2.5-flash-preview-tts:streamGenerateContent?alt=sse');
    expect(again.headers.get('content-type')).toMatch(/^text\/event-stream/);
  });
});

describe('recorded refusals', () => {
  const post = (model: string, generationConfig: Record<string, unknown>) =>
    fetch(`${sim.url}/v1beta/models/${model}:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'sim-key' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'Hello' }] }], generationConfig }),
    });
  const voice = { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } };

  test('a thinkingConfig on a 2.5 preview: "Thinking is not enabled for models/…", no details', async () => {
    const res = await post('gemini-2.5-flash-preview-tts', { responseModalities: ['AUDIO'], thinkingConfig: { thinkingBudget: 0 } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: 400, message: 'Thinking is not enabled for models/gemini-2.5-flash-preview-tts', status: 'INVALID_ARGUMENT' },
    });
    const taken = await post('gemini-3.1-flash-tts-preview', { responseModalities: ['AUDIO'], speechConfig: voice, thinkingConfig: {} });
    expect(taken.status).toBe(200);
  });

  test('TEXT modalities: the recorded message naming the model and the one combination it takes', async () => {
    const res = await post('gemini-2.5-flash-preview-tts', { responseModalities: ['TEXT'] });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { message: string; status: string } };
    expect(error.status).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe(
      'The requested combination of response modalities (TEXT) is not supported by the model. models/gemini-2.5-flash-preview-tts accepts the following combination of response modalities:\n* AUDIO',
    );
  });
});
