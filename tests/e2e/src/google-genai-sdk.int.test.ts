import { GoogleGenAI, Modality } from '@google/genai';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startStack, type Stack } from './stack.js';

let stack: Stack;
let ai: GoogleGenAI;
beforeAll(async () => {
  stack = await startStack();
  const { key } = await stack.newKey();
  ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: stack.url } });
}, 60_000);
afterAll(async () => stack?.close());

const config = {
  responseModalities: [Modality.AUDIO],
  speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Puck' } } },
};

test('the official @google/genai SDK generates speech through the relay', async () => {
  const response = await ai.models.generateContent({
    model: 'vendor-2.5-flash-preview-tts',
    contents: [{ parts: [{ text: 'Say warmly: the relay works.' }] }],
    config,
  });
  const audio = response.candidates?.[0]?.content?.parts?.[0]?.inlineData;
  expect(audio?.mimeType).toBe('audio/L16;codec=pcm;rate=24000');
  const pcm = Buffer.from(audio!.data!, 'base64');
  expect(pcm.length).toBeGreaterThan(24_000);
  expect(response.usageMetadata?.candidatesTokensDetails?.[0]?.modality).toBe('AUDIO');
});

test('generateContentStream yields the whole clip as one chunk', async () => {
  const chunks = [];
  const stream = await ai.models.generateContentStream({
    model: 'vendor-2.5-flash-preview-tts',
    contents: 'Read this: one, two, three.',
    config,
  });
  for await (const chunk of stream) chunks.push(chunk);
  expect(chunks).toHaveLength(1);
  expect(chunks[0]!.candidates?.[0]?.content?.parts?.[0]?.inlineData?.data?.length).toBeGreaterThan(1000);
});

test('an SDK error carries the relay\'s Google-dialect status', async () => {
  const error = await ai.models
    .generateContent({
      model: 'vendor-2.5-flash-preview-tts',
      contents: 'hello',
      config: { ...config, speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Nobody' } } } },
    })
    .catch((e: unknown) => e as { status?: number; message: string });
  expect(error).toMatchObject({ status: 400 });
  expect((error as Error).message).toMatch(/INVALID_ARGUMENT|unknown voice/);
});
