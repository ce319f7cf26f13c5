import { request as httpRequest } from 'node:http';
import type { Answer } from './load.js';

/** The requests the bench parts send, shared so that every part measures the same work. */
export const IMAGE = { model: 'vendor-gen-4-0-250828', prompt: 'a lighthouse at dusk' };
export const VENDOR_IMAGE = { ...IMAGE, model: 'seedream-4-0-250828' };
export const SPEECH_MODEL = 'vendor-2.5-flash-preview-tts';
/** About 64 KB of answer: 0.7 s of 24 kHz 16-bit audio, base64 in Gemini's JSON. */
export const SPEECH = {
  contents: [{ parts: [{ text: 'Good evening, all.' }] }],
  generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
};

export const post = (url: string, body: unknown, headers: Record<string, string>) => () =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/**
 * post() through node:http instead of fetch, one connection per request: a fraction of fetch's
 * CPU per request, for the parts where the load generator's own CPU would take the cores the
 * api is measured on (10,000 callers arriving at once).
 */
export const postLean = (url: string, body: unknown, headers: Record<string, string>) => {
  const payload = Buffer.from(JSON.stringify(body));
  const target = new URL(url);
  const options = {
    method: 'POST',
    host: target.hostname,
    port: target.port,
    path: target.pathname,
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': payload.length, ...headers },
  };
  return () =>
    new Promise<Answer>((resolve, reject) => {
      const req = httpRequest(options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const buffer = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            text: async () => buffer.toString(),
            arrayBuffer: async () => buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.length),
          });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
};

export const relayImage = (apiUrl: string, key: string) =>
  post(`${apiUrl}/v1/images/generations`, IMAGE, { authorization: `Bearer ${key}` });

export const relaySpeech = (apiUrl: string, key: string) =>
  post(`${apiUrl}/v1beta/models/${SPEECH_MODEL}:generateContent`, SPEECH, { 'x-goog-api-key': key });
