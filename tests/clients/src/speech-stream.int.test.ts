import { GoogleGenAI, Modality } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EMBEDDED_API_DEFAULTS } from '@relay/embedded/defaults';
import { startStack, type Stack } from '@relay/e2e';
import { GEMINI_VOICES, loadCatalog } from '@relay/core';
import { probe } from './audio-probe.js';

/**
 * Streamed speech read by the clients themselves, as it arrives: the catalog's first speech model
 * is on a vendor model that streams (3.8), so OpenAI's names land on it too. The simulator holds
 * the vendor's stream after its first second: what the client reads before the release was sent
 * before the clip was made.
 */
const MODEL = 'vendor-3.8-flash-tts';
const catalog = {
  ...loadCatalog({}),
  speechModels: {
    [MODEL]: {
      upstream: 'gemini',
      upstreamModel: 'gemini-3.8-flash-tts',
      price: { inputPerMillion: 1_000_000, outputPerMillion: 20_000_000 },
      voices: GEMINI_VOICES,
      defaultVoice: 'Kore',
    },
  },
};
/** OpenAI's speech model names (its TTS guide), which its tools send; OpenAI shuts them down on 2027-01-06. */
const OPENAI_SPEECH_MODELS = ['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts', 'gpt-4o-mini-tts-2025-03-20', 'gpt-4o-mini-tts-2025-12-15'];
const TEXT = 'The keeper climbed the winding stairs at dusk and lit the great lamp for the ships.';

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack({ api: { ...EMBEDDED_API_DEFAULTS }, catalog });
  ({ key } = await stack.newKey());
}, 60_000);
afterAll(async () => stack?.close());

const held = async () => (await stack.simStats()).holding;

describe("openai audio.speech.create: every one of OpenAI's speech names, streamed as it is made", () => {
  test.each(OPENAI_SPEECH_MODELS)('%s with stream_format sse: the first delta arrives while the vendor still speaks', async (model) => {
    const client = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: key, maxRetries: 0 });
    await stack.fault({ type: 'stream-hold', api: 'speech', after: 1 });
    const response = await client.audio.speech.create({ model, voice: 'alloy', input: TEXT, stream_format: 'sse' });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('\n\n')) text += decoder.decode((await reader.read()).value, { stream: true });
    expect(text).toMatch(/^event: speech\.audio\.delta\n/);
    expect(await held()).toBe(1);
    await stack.release();
    for (let step = await reader.read(); !step.done; step = await reader.read()) text += decoder.decode(step.value, { stream: true });
    const events = text
      .split('\n\n')
      .filter(Boolean)
      .map((block) => JSON.parse(block.split('\ndata: ')[1]!) as { type: string; audio?: string });
    expect(events.at(-1)!.type).toBe('speech.audio.done');
    const audio = Buffer.concat(events.filter((e) => e.audio).map((e) => Buffer.from(e.audio!, 'base64')));
    expect(probe(audio)).toMatchObject({ codec: 'mp3', channels: 1 });
    expect(probe(audio).durationS).toBeGreaterThan(4);
  });
});

describe('@google/genai generateContentStream', () => {
  test('the first chunk comes while the vendor still speaks; the chunks hold the clip, the last its usage', async () => {
    const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: stack.url } });
    await stack.fault({ type: 'stream-hold', api: 'speech', after: 1 });
    const stream = await ai.models.generateContentStream({
      model: MODEL,
      contents: TEXT,
      config: { responseModalities: [Modality.AUDIO], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Puck' } } } },
    });
    const first = await stream.next();
    expect(Buffer.from(first.value!.data, 'base64').length).toBe(48_000);
    expect(await held()).toBe(1);
    await stack.release();
    const chunks = [first.value!];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(4);
    const pcm = Buffer.concat(chunks.flatMap((c) => (c.data ? [Buffer.from(c.data, 'base64')] : [])));
    expect(chunks.at(-1)!.candidates?.[0]?.finishReason).toBe('STOP');
    expect(chunks.at(-1)!.usageMetadata?.candidatesTokenCount).toBe(Math.round((pcm.length / 48_000) * 25));
  });
});
