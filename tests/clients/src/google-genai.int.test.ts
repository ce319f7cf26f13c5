import { GoogleGenAI as GenAI3, Modality } from '@google/genai';
import { GoogleGenAI as GenAI2 } from '@google/genai-v2';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startClientStack, type Stack } from './client-stack.js';

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startClientStack();
  ({ key } = await stack.newKey());
}, 60_000);
afterAll(async () => stack?.close());

const MODEL = 'vendor-2.5-flash-preview-tts';
const config = {
  responseModalities: [Modality.AUDIO],
  speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Puck' } } },
};

/** The Google error body the SDK puts into its message (it parses JSON bodies only). */
const googleError = (error: unknown) =>
  JSON.parse((error as Error).message) as { error: { code: number; status: string; message: string } };

// 3.x calls /v1/models/..., 2.x /v1beta/models/...; both are given only a base URL and a key
describe.each([
  ['@google/genai 3.x', (apiKey: string) => new GenAI3({ apiKey, httpOptions: { baseUrl: stack.url } })],
  ['@google/genai 2.x', (apiKey: string) => new GenAI2({ apiKey, httpOptions: { baseUrl: stack.url } }) as unknown as GenAI3],
])('%s', (_label, connect) => {
  let ai: GenAI3;
  beforeAll(() => {
    ai = connect(key);
  });

  test('generateContent returns the PCM clip with usage', async () => {
    const response = await ai.models.generateContent({
      model: MODEL,
      contents: [{ parts: [{ text: 'Say warmly: the relay works.' }] }],
      config,
    });
    const audio = response.candidates?.[0]?.content?.parts?.[0]?.inlineData;
    expect(audio?.mimeType).toBe('audio/L16;codec=pcm;rate=24000');
    expect(Buffer.from(audio!.data!, 'base64').length).toBeGreaterThan(24_000);
    expect(response.usageMetadata?.candidatesTokensDetails?.[0]?.modality).toBe('AUDIO');
  });

  test('generateContentStream yields the clip as the vendor streams it (the 2.5 preview: one piece), then its finish and usage', async () => {
    const chunks = [];
    for await (const chunk of await ai.models.generateContentStream({ model: MODEL, contents: 'Read this: one, two, three.', config }))
      chunks.push(chunk);
    expect(chunks).toHaveLength(2);
    expect(chunks[0]!.data?.length).toBeGreaterThan(1000);
    expect(chunks[1]!.candidates?.[0]?.finishReason).toBe('STOP');
    expect(chunks[1]!.usageMetadata?.candidatesTokenCount).toBeGreaterThan(0);
  });

  test("countTokens answers an estimate in Gemini's tokens (about 4 characters each), not the character count", async () => {
    const text = 'Say cheerfully: have a wonderful day!';
    const counted = await ai.models.countTokens({ model: MODEL, contents: text });
    expect(counted.totalTokens).toBe(Math.ceil(text.length / 4));
  });

  test('models.get and models.list describe the speech model as a Gemini resource', async () => {
    const model = await ai.models.get({ model: MODEL });
    expect(model).toMatchObject({
      name: `models/${MODEL}`,
      displayName: expect.any(String),
      inputTokenLimit: 8192,
      outputTokenLimit: 16384,
    });
    expect(model.supportedActions).toEqual(expect.arrayContaining(['generateContent', 'countTokens']));
    const names: string[] = [];
    for await (const listed of await ai.models.list({ config: { pageSize: 1 } })) names.push(listed.name!);
    // every speech model, the GA 3.8 models beside the preview's id, a page of one at a time
    expect(names).toEqual([`models/${MODEL}`, 'models/vendor-3.8-flash-tts', 'models/vendor-3.8-flash-lite-tts']);
  });

  test('errors come back in Google shape: a bad voice, an unknown model, an image model', async () => {
    const badVoice = await ai.models
      .generateContent({
        model: MODEL,
        contents: 'hello',
        config: { ...config, speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Nobody' } } } },
      })
      .catch((e: unknown) => e);
    expect(badVoice).toMatchObject({ status: 400 });
    expect(googleError(badVoice).error.status).toBe('INVALID_ARGUMENT');

    for (const missing of ['gemini-9-ultra', 'vendor-gen-5-0-260128']) {
      const unknown = await ai.models.generateContent({ model: missing, contents: 'hello', config }).catch((e: unknown) => e);
      expect(unknown).toMatchObject({ status: 404 });
      expect(googleError(unknown).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
      const info = await ai.models.get({ model: missing }).catch((e: unknown) => e);
      expect(googleError(info).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    }
  });
});

test('a wrong key is refused in Google shape on every version', async () => {
  for (const apiVersion of ['v1', 'v1beta', 'v1alpha']) {
    const ai = new GenAI3({ apiKey: 'rk_wrong', httpOptions: { baseUrl: stack.url, apiVersion } });
    const error = await ai.models.countTokens({ model: MODEL, contents: 'hi' }).catch((e: unknown) => e);
    expect(error, apiVersion).toMatchObject({ status: 401 });
    expect(googleError(error).error.status).toBe('UNAUTHENTICATED');
  }
});
