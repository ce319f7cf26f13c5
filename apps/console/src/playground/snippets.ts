import type { ImageRequest, SpeechRequest } from '../api/types.js';

/**
 * The playground's request as a client would send it: curl, and the SDKs the relay is tested
 * with (openai for images, @google/genai for speech). The key is read from $RELAY_API_KEY, so
 * no snippet ever holds the secret.
 */
const json = (value: unknown) => JSON.stringify(value, null, 2);
const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function imageCurl(origin: string, body: ImageRequest) {
  return `curl -s ${origin}/v1/images/generations \\
  -H "Authorization: Bearer $RELAY_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d ${shellQuote(JSON.stringify(body))}`;
}

export function imageSdk(origin: string, body: ImageRequest) {
  return `import OpenAI from 'openai';

const relay = new OpenAI({ baseURL: '${origin}/v1', apiKey: process.env.RELAY_API_KEY });
const result = await relay.images.generate(${json(body)});
console.log(result.data.map((image) => image.url ?? 'b64_json: ' + image.b64_json?.length + ' chars'));`;
}

export const speechPath = (model: string) => `/v1beta/models/${encodeURIComponent(model)}:generateContent`;

export function speechBody(text: string, voice: string): SpeechRequest {
  return {
    contents: [{ parts: [{ text }] }],
    generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: voice } } } },
  };
}

export function speechCurl(origin: string, model: string, body: SpeechRequest) {
  return `curl -s "${origin}${speechPath(model)}" \\
  -H "x-goog-api-key: $RELAY_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d ${shellQuote(JSON.stringify(body))}`;
}

export function speechSdk(origin: string, model: string, text: string, voice: string) {
  return `import { GoogleGenAI, Modality } from '@google/genai';

const ai = new GoogleGenAI({ apiKey: process.env.RELAY_API_KEY, httpOptions: { baseUrl: '${origin}' } });
const response = await ai.models.generateContent({
  model: ${JSON.stringify(model)},
  contents: ${JSON.stringify(text)},
  config: { responseModalities: [Modality.AUDIO], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: ${JSON.stringify(voice)} } } } },
});
// 16-bit mono PCM; its rate is in inlineData.mimeType (audio/L16;codec=pcm;rate=24000)
const pcm = Buffer.from(response.candidates![0]!.content!.parts![0]!.inlineData!.data!, 'base64');`;
}

/** The formats /v1/audio/speech answers that a browser plays (pcm is bare samples: nothing plays it). */
export const SPEECH_FORMATS = ['gemini', 'mp3', 'opus', 'aac', 'flac', 'wav'] as const;
export type SpeechFormat = (typeof SPEECH_FORMATS)[number];

export const openAISpeechBody = (model: string, text: string, voice: string, format: Exclude<SpeechFormat, 'gemini'>) => ({
  model,
  voice,
  input: text,
  response_format: format,
});

export function openAISpeechCurl(origin: string, body: ReturnType<typeof openAISpeechBody>) {
  return `curl -s ${origin}/v1/audio/speech \\
  -H "Authorization: Bearer $RELAY_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d ${shellQuote(JSON.stringify(body))} -o speech.${body.response_format === 'opus' ? 'ogg' : body.response_format}`;
}

export function openAISpeechSdk(origin: string, body: ReturnType<typeof openAISpeechBody>) {
  return `import OpenAI from 'openai';

const relay = new OpenAI({ baseURL: '${origin}/v1', apiKey: process.env.RELAY_API_KEY });
const audio = await relay.audio.speech.create(${json(body)});
const bytes = Buffer.from(await audio.arrayBuffer());`;
}
